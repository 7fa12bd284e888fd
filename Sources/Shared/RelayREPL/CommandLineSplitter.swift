import RelayCLI

/// Splits an input line into a command name and its arguments.
///
/// Words are separated by spaces or tabs. A double-quoted part keeps its spaces
/// (`"hello world"`); a backslash escapes the next character, with `\n`, `\t` and `\r`
/// meaning newline, tab and carriage return; `\\` and `\"` are a backslash and a quote.
public enum CommandLineSplitter {
    /// The command name (first word) and the untouched text after it (leading blanks
    /// removed). An empty or blank line gives an empty name.
    public static func head(of line: String) -> (name: String, rest: Substring) {
        let trimmed = line.drop(while: isBlank)
        let name = trimmed.prefix(while: { !isBlank($0) })
        let rest = trimmed.dropFirst(name.count).drop(while: isBlank)
        return (String(name), rest)
    }

    /// Splits `text` into words, honouring double quotes and backslash escapes.
    public static func words(_ text: Substring) throws(CommandError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var inQuotes = false
        var index = text.startIndex
        while index < text.endIndex {
            let char = text[index]
            index = text.index(after: index)
            if char == "\\" {
                guard index < text.endIndex else {
                    throw CommandError("a backslash at the end of the line escapes nothing")
                }
                current.append(unescape(text[index]))
                index = text.index(after: index)
                inWord = true
            } else if char == "\"" {
                inQuotes.toggle()
                inWord = true
            } else if isBlank(char) && !inQuotes {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(char)
                inWord = true
            }
        }
        if inQuotes { throw CommandError("unterminated double quote") }
        if inWord { words.append(current) }
        return words
    }

    /// The rest of the line as one argument: literal, trailing blanks removed; or, if it
    /// starts with a double quote, exactly one quoted string with escapes applied.
    public static func restOfLine(_ text: Substring) throws(CommandError) -> String {
        guard text.first == "\"" else {
            var end = text.endIndex
            while end > text.startIndex, isBlank(text[text.index(before: end)]) {
                end = text.index(before: end)
            }
            return String(text[text.startIndex..<end])
        }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let char = text[index]
            index = text.index(after: index)
            if char == "\\" {
                guard index < text.endIndex else { break }
                result.append(unescape(text[index]))
                index = text.index(after: index)
            } else if char == "\"" {
                guard text[index...].allSatisfy(isBlank) else {
                    throw CommandError(
                        "unexpected text after the closing quote (quote the whole text, or do not start it with a quote)"
                    )
                }
                return result
            } else {
                result.append(char)
            }
        }
        throw CommandError("unterminated double quote")
    }

    static func isBlank(_ char: Character) -> Bool { char == " " || char == "\t" }

    private static func unescape(_ char: Character) -> Character {
        switch char {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        default: return char
        }
    }
}
