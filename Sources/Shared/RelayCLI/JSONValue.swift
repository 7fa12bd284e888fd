/// A JSON value, small enough to encode events without Foundation.
///
/// Objects keep their keys in the order given, so event lines read naturally
/// (`{"event":"counter","time":...,"value":7}`). Strings are always valid Unicode:
/// build them from raw bytes with ``JSONValue/text(decoding:)``, which replaces
/// invalid UTF-8 with U+FFFD.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A floating-point number; NaN and infinities encode as `null`.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Key/value pairs in output order (duplicates are written as given).
    case object([(String, JSONValue)])

    /// A string decoded from bytes as UTF-8, with invalid sequences replaced by U+FFFD.
    public static func text<Bytes: Collection>(decoding bytes: Bytes) -> JSONValue where Bytes.Element == UInt8 {
        .string(String(decoding: bytes, as: UTF8.self))
    }

    /// An unsigned integer (UInt32 counters, lengths, MTUs).
    public static func unsigned<T: UnsignedInteger>(_ value: T) -> JSONValue {
        if let exact = Int64(exactly: value) { return .integer(exact) }
        return .number(Double(value))
    }

    /// The compact JSON text of this value (no newlines).
    public var encoded: String {
        var out = ""
        encode(into: &out)
        return out
    }

    /// Appends the compact JSON text of this value to `out`.
    public func encode(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .integer(let value): out += String(value)
        case .number(let value):
            if value.isFinite {
                if value == value.rounded(), abs(value) < 1e15 {
                    out += String(Int64(value))
                } else {
                    out += "\(value)"
                }
            } else {
                out += "null"
            }
        case .string(let text): Self.encodeString(text, into: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.encode(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.encodeString(key, into: &out)
                out += ":"
                value.encode(into: &out)
            }
            out += "}"
        }
    }

    /// Writes `text` as a quoted JSON string: quotes, backslashes and every control
    /// character are escaped; U+2028/U+2029 too, so the line is also valid JavaScript.
    public static func encodeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}", "\u{2029}", "\u{7F}":
                out += "\\u" + hex4(scalar.value)
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + hex4(scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: false)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.encoded == rhs.encoded
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(nilLiteral: ()) { self = .null }
}
