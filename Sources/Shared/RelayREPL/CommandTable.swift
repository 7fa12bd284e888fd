import RelayCLI

/// The commands a REPL knows: lookup, argument splitting and checking, help text,
/// and "did you mean" suggestions.
public struct CommandTable {
    /// The commands in the order `help` lists them.
    public private(set) var commands: [CommandSpec] = []

    /// An empty table.
    public init() {}

    /// Adds a command; a later command with the same name replaces the earlier one.
    public mutating func add(_ spec: CommandSpec) {
        if let index = commands.firstIndex(where: { $0.name == spec.name }) {
            commands[index] = spec
        } else {
            commands.append(spec)
        }
    }

    /// The command called `name`, if any.
    public func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }

    /// The command names, in help order.
    public var names: [String] { commands.map(\.name) }

    /// A line resolved to its command and split, checked arguments.
    public struct Invocation {
        /// The command to run.
        public let spec: CommandSpec
        /// Its arguments.
        public let arguments: [String]
    }

    /// Resolves `line` (a non-blank line) to a command and its arguments, or throws the
    /// one-line error to show (unknown command with a suggestion, bad quoting, wrong count).
    public func parse(_ line: String) throws(CommandError) -> Invocation {
        let (name, rest) = CommandLineSplitter.head(of: line)
        guard let spec = command(named: name) else {
            throw CommandError(unknownCommandMessage(name))
        }
        let arguments: [String]
        switch spec.shape {
        case .restOfLine(let required):
            let text: String
            do { text = try CommandLineSplitter.restOfLine(rest) } catch {
                throw CommandError("\(name): \(error.message)")
            }
            if required && text.isEmpty && rest.isEmpty {
                throw CommandError(
                    "\(name): missing \(spec.synopsis.isEmpty ? "argument" : spec.synopsis) (usage: \(spec.usage))")
            }
            arguments = rest.isEmpty ? [] : [text]
        case .words(let minimum, let maximum):
            do { arguments = try CommandLineSplitter.words(rest) } catch {
                throw CommandError("\(name): \(error.message)")
            }
            if arguments.count < minimum {
                throw CommandError("\(name): missing argument (usage: \(spec.usage))")
            }
            if let maximum, arguments.count > maximum {
                let takes =
                    maximum == 0 ? "takes no arguments" : "takes at most \(maximum) argument\(maximum == 1 ? "" : "s")"
                throw CommandError("\(name) \(takes) (usage: \(spec.usage))")
            }
        }
        return Invocation(spec: spec, arguments: arguments)
    }

    /// "unknown command 'sned'; did you mean 'send'? Type 'help'."
    public func unknownCommandMessage(_ name: String) -> String {
        let shown = ValueParser.quoted(name)
        if let suggestion = suggestion(for: name) {
            return "unknown command \(shown); did you mean '\(suggestion)'? Type 'help'."
        }
        return "unknown command \(shown). Type 'help' for the list of commands."
    }

    /// The closest command name to `name` (see ``NameSuggestion``).
    public func suggestion(for name: String) -> String? {
        NameSuggestion.closest(to: name, among: names)
    }

    /// The `help` text: one line per command, usage padded into a column, then a hint.
    public func helpText() -> String {
        let width = min(28, commands.map(\.usage.count).max() ?? 0)
        var lines = ["Commands:"]
        for spec in commands {
            let usage = spec.usage
            let padding = String(repeating: " ", count: max(1, width - usage.count + 2))
            lines.append("  " + usage + padding + spec.summary)
        }
        lines.append("Type 'help COMMAND' for details.")
        return lines.joined(separator: "\n")
    }

    /// The `help NAME` text, or nil for an unknown command.
    public func helpText(for name: String) -> String? {
        guard let spec = command(named: name) else { return nil }
        var lines = ["usage: " + spec.usage, "  " + spec.summary]
        if !spec.details.isEmpty {
            lines += spec.details.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// What TAB offers for the word being typed: command names for the first word,
    /// otherwise the command's argument completion (nil: complete file names).
    public func completions(lineBeforeWord: String, word: String) -> [String]? {
        let (name, _) = CommandLineSplitter.head(of: lineBeforeWord)
        if name.isEmpty {
            return names.filter { $0.hasPrefix(word) }
        }
        guard let spec = command(named: name) else { return [] }
        switch spec.completion {
        case .none: return []
        case .words(let words): return words.filter { $0.hasPrefix(word) }
        case .dynamic(let provider): return provider().filter { $0.hasPrefix(word) }
        case .paths: return nil
        }
    }
}
