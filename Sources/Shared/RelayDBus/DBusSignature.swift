internal import CDBus

/// A validated D-Bus type signature: zero or more complete types, e.g. `a{sv}` or `oa{sa{sv}}`.
public struct DBusSignature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature text.
    public let rawValue: String

    /// Validates `string` as a signature (any number of complete types).
    public init(_ string: String) throws(DBusError) {
        guard Self.isValid(string) else { throw .invalidName("signature '\(string)'") }
        rawValue = string
    }

    /// A literal signature; an invalid literal is a programming error and traps.
    public init(stringLiteral value: String) {
        precondition(Self.isValid(value), "invalid D-Bus signature literal '\(value)'")
        rawValue = value
    }

    init(unchecked: String) { rawValue = unchecked }

    public var description: String { rawValue }

    public static let byte: DBusSignature = "y"
    public static let boolean: DBusSignature = "b"
    public static let int16: DBusSignature = "n"
    public static let uint16: DBusSignature = "q"
    public static let int32: DBusSignature = "i"
    public static let uint32: DBusSignature = "u"
    public static let int64: DBusSignature = "x"
    public static let uint64: DBusSignature = "t"
    public static let double: DBusSignature = "d"
    public static let string: DBusSignature = "s"
    public static let objectPath: DBusSignature = "o"
    public static let signature: DBusSignature = "g"
    public static let unixFD: DBusSignature = "h"
    public static let variant: DBusSignature = "v"
    /// The empty signature (no arguments).
    public static let empty = DBusSignature(unchecked: "")

    /// `a` + element.
    public static func array(of element: DBusSignature) -> DBusSignature {
        DBusSignature(unchecked: "a" + element.rawValue)
    }

    /// `a{` + key + value + `}`.
    public static func dictionary(key: DBusSignature, value: DBusSignature) -> DBusSignature {
        DBusSignature(unchecked: "a{" + key.rawValue + value.rawValue + "}")
    }

    /// `(` + members + `)`.
    public static func structure(_ members: [DBusSignature]) -> DBusSignature {
        DBusSignature(unchecked: "(" + members.map(\.rawValue).joined() + ")")
    }

    /// Whether this is exactly one complete type (the shape an array element or variant needs).
    public var isSingleCompleteType: Bool {
        rawValue.withCString { dbus_signature_validate_single($0, nil) != 0 }
    }

    /// Whether this is one basic type (usable as a dictionary key).
    public var isBasic: Bool {
        rawValue.utf8.count == 1 && "ybnqiuxtdsogh".utf8.contains(rawValue.utf8.first!)
    }

    /// The complete types this signature is made of, in order (`"sa{sv}"` gives `["s", "a{sv}"]`).
    public var completeTypes: [DBusSignature] {
        let bytes = Array(rawValue.utf8)
        var result: [DBusSignature] = []
        var index = 0
        while index < bytes.count {
            let end = Self.endOfCompleteType(bytes, from: index)
            result.append(DBusSignature(unchecked: String(decoding: bytes[index..<end], as: UTF8.self)))
            index = end
        }
        return result
    }

    private static func endOfCompleteType(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] == UInt8(ascii: "a") { index += 1 }
        guard index < bytes.count else { return bytes.count }
        let open = bytes[index]
        guard open == UInt8(ascii: "(") || open == UInt8(ascii: "{") else { return index + 1 }
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "("), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
            index += 1
            if depth == 0 { break }
        }
        return index
    }

    /// Whether `string` is a valid signature.
    public static func isValid(_ string: String) -> Bool {
        if string.utf8.contains(0) { return false }
        return string.withCString { dbus_signature_validate($0, nil) != 0 }
    }
}
