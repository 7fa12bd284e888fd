#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one place that prints: events, command results and errors all go to stdout
/// through it, in human or JSON form.
///
/// - Human mode: each event is its ``ReportableEvent/humanDescription`` on its own line;
///   errors read `error: <message>`. Control characters (other than newline and tab)
///   are shown as `\xNN`, so remote text can never drive the terminal.
/// - JSON mode (`--json`): every line is one JSON object with `"event"` (the name) and
///   `"time"` (ISO-8601 UTC with milliseconds, see ``Timestamp``) followed by the
///   event's fields. Plain text from ``print(_:)`` becomes `{"event":"output","text":...}`.
///
/// While the user is typing at the interactive prompt, output is printed above the
/// line being edited, which is then redrawn intact. Live lines (``LiveLine``: a transfer's
/// progress) sit between the printed output and the prompt, one terminal row each, updated in
/// place; without a prompt on screen they are not printed in human mode.
public final class Console {
    /// How output is written.
    public enum Format: Sendable, Equatable {
        case human
        case json
    }

    /// The output format chosen at start-up.
    public let format: Format
    private let output: (String) -> Void
    private let clock: () -> String
    private var observers: [(any ReportableEvent) -> Void] = []
    /// Set by the REPL while readline owns the terminal line.
    package var editor: (any LineEditorOutput)?
    /// The terminal's width in columns (live lines are cut to fit one row).
    package var columns: () -> Int = Console.terminalColumns
    /// The live lines, oldest first.
    private var live: [(key: String, text: String)] = []
    /// Rows of live lines on screen above the prompt now.
    private var liveRows = 0

    /// A console writing to `output` (stdout by default); `clock` stamps JSON lines.
    public init(
        format: Format = .human,
        output: @escaping (String) -> Void = Console.writeToStandardOutput,
        clock: @escaping () -> String = Timestamp.now
    ) {
        self.format = format
        self.output = output
        self.clock = clock
    }

    /// Calls `observer` for every event passed to ``report(_:)`` (the REPL records them for `wait`).
    public func addObserver(_ observer: @escaping (any ReportableEvent) -> Void) {
        observers.append(observer)
    }

    /// Prints an event (human line or JSON object) and tells the observers.
    public func report(_ event: any ReportableEvent) {
        switch format {
        case .human:
            switch event.liveLine {
            case .update(let key, let text)?:
                updateLive(key, Self.sanitize(text))
            case .end(let key)?:
                live.removeAll { $0.key == key }
                emit(Self.sanitize(event.humanDescription))
            case nil:
                if !event.humanDescription.isEmpty { emit(Self.sanitize(event.humanDescription)) }
            }
        case .json:
            emit(jsonLine(name: event.name, fields: event.fields))
        }
        for observer in observers { observer(event) }
    }

    /// Reports an asynchronous failure as an `error` event (`error: <message>`,
    /// or `{"event":"error","message":...}` plus `fields`). It can be waited for.
    public func error(_ message: String, fields: [(String, JSONValue)] = []) {
        report(SimpleEvent("error", human: "error: " + message, fields: [("message", .string(message))] + fields))
    }

    /// Prints informational text (help, status tables); may span several lines.
    public func print(_ text: String) {
        switch format {
        case .human: emit(Self.sanitize(text))
        case .json: emit(jsonLine(name: "output", fields: [("text", .string(text))]))
        }
    }

    /// Prints a failed command's message; not an event, so `wait error` ignores it.
    package func commandFailed(_ message: String, command: String?, line: Int?) {
        switch format {
        case .human:
            emit(Self.sanitize("error: " + message))
        case .json:
            var fields: [(String, JSONValue)] = [("message", .string(message))]
            if let command { fields.append(("command", .string(command))) }
            if let line { fields.append(("line", .integer(Int64(line)))) }
            emit(jsonLine(name: "error", fields: fields))
        }
    }

    /// The JSON line for an event named `name` with `fields` (without the newline).
    public func jsonLine(name: String, fields: [(String, JSONValue)]) -> String {
        var pairs: [(String, JSONValue)] = [("event", .string(name)), ("time", .string(clock()))]
        pairs += fields.filter { $0.0 != "event" && $0.0 != "time" }
        return JSONValue.object(pairs).encoded
    }

    private func emit(_ text: String) {
        let line = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
        if let editor, editor.isEditing {
            editor.printAbove(clearLiveRows() + line + liveText(), using: output)
        } else {
            liveRows = 0
            if !line.isEmpty { output(line) }
        }
    }

    /// Shows `text` as live line `key` (above the prompt); nothing without a prompt on screen.
    private func updateLive(_ key: String, _ text: String) {
        guard let editor, editor.isEditing else {
            live.removeAll()
            liveRows = 0
            return
        }
        if let index = live.firstIndex(where: { $0.key == key }) {
            live[index].text = text
        } else {
            live.append((key, text))
        }
        emit("")
    }

    /// Moves up over the live rows on screen and clears them (the cursor is at the start of
    /// the prompt's row).
    private func clearLiveRows() -> String {
        guard liveRows > 0 else { return "" }
        return "\u{1B}[\(liveRows)A\r\u{1B}[J"
    }

    /// The live lines, each cut to one row (by display columns: wide characters take two).
    private func liveText() -> String {
        liveRows = live.count
        let width = max(20, columns() - 1)
        return live.map { Self.cut($0.text, toColumns: width) + "\n" }.joined()
    }

    /// `text` without line breaks, cut with `…` to at most `columns` display columns.
    static func cut(_ text: String, toColumns columns: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let character: Character = character == "\n" || character == "\t" || character == "\r\n" ? " " : character
            let width = character.unicodeScalars.reduce(0) { $0 + columnWidth($1) }
            if used + width > columns - 1 {
                return out + "…"
            }
            used += width
            out.append(character)
        }
        return out
    }

    /// Columns a terminal gives `scalar`: 0 for combining marks and joiners, 2 for East Asian wide
    /// characters and emoji, else 1.
    static func columnWidth(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default: return 1
        }
    }

    /// The width of the terminal on standard output (80 when it says none).
    public static func terminalColumns() -> Int {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// `text` with every control character except newline and tab (C0, DEL, C1)
    /// replaced by a visible `\xNN` escape.
    public static func sanitize(_ text: String) -> String {
        var needs = false
        for scalar in text.unicodeScalars where isUnsafeControl(scalar) {
            needs = true
            break
        }
        guard needs else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnsafeControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` as one line of a human-mode report, every character that could break the line or
    /// disguise it made visible: a peer's text with a line feed printed a second line that read as
    /// an event of its own. `\n`, `\r`, `\t` and `\\` stand for themselves, the other control
    /// characters (C0, DEL, C1) are `\xNN`, the line and paragraph separators and the bidirectional
    /// controls (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) `\u{NNNN}`.
    public static func oneLine(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x5C: out += "\\\\"
            case 0x00..<0x20, 0x7F..<0xA0:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            case 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isUnsafeControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0x0A || value == 0x09 { return false }
        return value < 0x20 || (value >= 0x7F && value < 0xA0)
    }

    /// Writes all of `text` to file descriptor 1 (retrying partial writes; a closed
    /// pipe is ignored, SIGPIPE is ignored by the REPL).
    public static func writeToStandardOutput(_ text: String) {
        writeAll(fd: 1, text)
    }

    /// Writes all of `text` to `fd`, retrying on EINTR and partial writes.
    public static func writeAll(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// What the console needs from an interactive line editor.
package protocol LineEditorOutput: AnyObject {
    /// Whether a prompt and a partly typed line are on screen.
    var isEditing: Bool { get }
    /// Clears the edited line, writes `text` with `output`, then redraws prompt and line.
    func printAbove(_ text: String, using output: (String) -> Void)
}
