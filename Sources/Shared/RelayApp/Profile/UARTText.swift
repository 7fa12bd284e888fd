/// How a line ends in text sent to a UART (Nordic UART Service) peer (`--nus-eol`).
public enum UARTLineEnding: String, Sendable, CaseIterable {
    case lf
    case crlf
    case none

    /// The bytes appended to each line sent.
    public var bytes: [UInt8] {
        switch self {
        case .lf: [0x0A]
        case .crlf: [0x0D, 0x0A]
        case .none: []
        }
    }
}

/// Text from a UART peer (a phone app, a micro:bit) made into lines: LF, CR or CRLF ends a line
/// (a CRLF split across two writes counts once), a pause of `idleGap` seconds ends a line that
/// has no ending, and a line never grows past `maximumLine` bytes (cut before a character that
/// would cross it). Empty lines are not lines (an ending after the pause already ended the line,
/// or a blank line). Invalid UTF-8 is shown escaped (`\xFF`), never dropped. A plain value with
/// time as an input.
public struct UARTLineAssembler: Sendable, Equatable {
    /// A line without an ending is complete after this long without a byte (seconds).
    public static let idleGap = 0.5
    /// Bytes held for one line at most; a longer one is cut into lines of this size.
    public static let maximumLine = 4096

    private var pending: [UInt8] = []
    private var lastByteAt = 0.0
    /// The last byte taken was CR: a LF right after it ends nothing more.
    private var afterCR = false

    public init() {}

    /// When the line being held ends for want of an ending; nil when none is held.
    public var deadline: Double? { pending.isEmpty ? nil : lastByteAt + Self.idleGap }

    /// The lines `bytes` complete (without their endings).
    public mutating func receive(_ bytes: [UInt8], at now: Double) -> [String] {
        var lines: [String] = []
        if !pending.isEmpty, now >= lastByteAt + Self.idleGap { lines.append(takeLine()) }
        for byte in bytes {
            switch byte {
            case 0x0A where afterCR:
                afterCR = false
            case 0x0A, 0x0D:
                if !pending.isEmpty { lines.append(takeLine()) }
                afterCR = byte == 0x0D
            default:
                afterCR = false
                // A lead byte (not a continuation byte) that would end past the limit: cut before it.
                if pending.count >= Self.maximumLine - 3, byte & 0xC0 != 0x80 { lines.append(takeLine()) }
                pending.append(byte)
                if pending.count >= Self.maximumLine { lines.append(takeLine()) }
            }
        }
        if !bytes.isEmpty { lastByteAt = now }
        return lines
    }

    /// The line held, once the idle gap is over at `now`.
    public mutating func tick(at now: Double) -> [String] {
        guard let deadline, now >= deadline else { return [] }
        return [takeLine()]
    }

    private mutating func takeLine() -> String {
        defer { pending.removeAll(keepingCapacity: true) }
        return Self.text(pending)
    }

    /// `bytes` as text: UTF-8, every byte that is not part of valid UTF-8 as `\xNN`.
    public static func text(_ bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var out = ""
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            if length > 0, let scalar = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                out += scalar
                index += length
            } else {
                let digits = String(bytes[index], radix: 16, uppercase: true)
                out += "\\x" + (digits.count < 2 ? "0" : "") + digits
                index += 1
            }
        }
        return out
    }

    /// The length of the UTF-8 sequence its lead byte announces at `index` (0: not a lead byte,
    /// or cut short).
    private static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x00...0x7F: length = 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        return index + length <= bytes.count ? length : 0
    }
}

/// Text for a UART peer cut into values of at most `maxBytes` (MTU-3): on character boundaries
/// where a character fits, on Unicode scalar boundaries where one does not, so every value is
/// valid UTF-8 on its own; `ending` is appended to the text.
public enum UARTTextSplitter {
    public static func values(_ text: String, ending: UARTLineEnding, maxBytes: Int) -> [[UInt8]] {
        precondition(maxBytes >= 4, "a value holds at least one Unicode scalar")
        var values: [[UInt8]] = []
        var current: [UInt8] = []
        func add(_ piece: [UInt8]) {
            if current.count + piece.count > maxBytes, !current.isEmpty {
                values.append(current)
                current = []
            }
            current += piece
        }
        for character in text {
            let bytes = Array(String(character).utf8)
            if bytes.count <= maxBytes {
                add(bytes)
            } else {
                for scalar in character.unicodeScalars { add(Array(String(scalar).utf8)) }
            }
        }
        for byte in ending.bytes { add([byte]) }
        if !current.isEmpty { values.append(current) }
        return values
    }
}
