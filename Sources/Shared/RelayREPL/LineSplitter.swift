import RelayCLI

/// One line of input, numbered from 1, either usable text or the reason it was refused.
public struct InputLine: Equatable, Sendable {
    /// 1-based line number in the input.
    public let number: Int
    /// The text (line ending removed), or why the line was refused.
    public let content: Result<String, CommandError>
}

/// Checks one line of input: valid UTF-8, no control characters but tab, at most
/// `maximumLength` bytes. A trailing carriage return (CRLF input) is dropped.
public enum LineValidator {
    /// Input lines longer than this many bytes are refused (64 KiB).
    public static let defaultMaximumLength = 65_536

    /// The line as text, or a one-line explanation of what is wrong with it.
    public static func validate<Bytes: Collection>(
        _ raw: Bytes, maximumLength: Int = defaultMaximumLength
    )
        -> Result<String, CommandError> where Bytes.Element == UInt8
    {
        var bytes = Array(raw)
        if bytes.last == 0x0D { bytes.removeLast() }
        if bytes.count > maximumLength {
            return .failure(CommandError("line too long (\(bytes.count) bytes, at most \(maximumLength)); ignored"))
        }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var text = ""
        text.reserveCapacity(bytes.count)
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                let value = scalar.value
                if value != 0x09 && (value < 0x20 || (value >= 0x7F && value < 0xA0)) {
                    let hex = String(value, radix: 16, uppercase: true)
                    return .failure(
                        CommandError(
                            "control character 0x\(hex.count < 2 ? "0" + hex : hex) at byte \(offset + 1) of the line; ignored "
                                + "(inside double quotes write \\n, \\t or \\r)"))
                }
                text.unicodeScalars.append(scalar)
                offset += encoded.count
            case .error:
                let byte = offset < bytes.count ? bytes[offset] : 0
                let hex = String(byte, radix: 16, uppercase: true)
                return .failure(
                    CommandError(
                        "line is not valid UTF-8 (byte 0x\(hex.count < 2 ? "0" + hex : hex) at byte \(offset + 1)); ignored"
                    ))
            case .emptyInput:
                break decoding
            }
        }
        return .success(text)
    }
}

/// Cuts a byte stream into validated lines. Partial lines wait for more bytes; a line
/// that grows past the limit is refused once and skipped up to its newline, so a huge
/// or endless line never uses more than `maximumLength` bytes of memory.
public struct LineSplitter {
    /// The longest accepted line, in bytes.
    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    private var discardedBytes = 0
    private var lineNumber = 0

    /// A splitter refusing lines longer than `maximumLength` bytes.
    public init(maximumLength: Int = LineValidator.defaultMaximumLength) {
        self.maximumLength = maximumLength
    }

    /// Consumes `bytes` and returns the lines they complete.
    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) -> [InputLine] where Bytes.Element == UInt8 {
        var lines: [InputLine] = []
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let piece = bytes[start..<newline]
            if discarding {
                lines.append(tooLong(extra: piece.count))
            } else {
                buffer.append(contentsOf: piece)
                lines.append(takeBuffer())
            }
            start = bytes.index(after: newline)
        }
        let tail = bytes[start...]
        if discarding {
            discardedBytes += tail.count
        } else {
            buffer.append(contentsOf: tail)
            if buffer.count > maximumLength + 1 {
                discarding = true
                discardedBytes = buffer.count
                buffer = []
            }
        }
        return lines
    }

    /// End of input: returns the last line if it had no newline.
    public mutating func finish() -> [InputLine] {
        if discarding { return [tooLong(extra: 0)] }
        if buffer.isEmpty { return [] }
        return [takeBuffer()]
    }

    private mutating func takeBuffer() -> InputLine {
        lineNumber += 1
        let line = InputLine(number: lineNumber, content: LineValidator.validate(buffer, maximumLength: maximumLength))
        buffer.removeAll(keepingCapacity: buffer.count <= 4096)
        return line
    }

    private mutating func tooLong(extra: Int) -> InputLine {
        lineNumber += 1
        let total = discardedBytes + extra
        discarding = false
        discardedBytes = 0
        return InputLine(
            number: lineNumber,
            content: .failure(
                CommandError(
                    "line too long (\(total) bytes, at most \(maximumLength)); ignored")))
    }
}
