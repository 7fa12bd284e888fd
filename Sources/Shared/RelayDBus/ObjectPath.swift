/// A validated D-Bus object path such as `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
///
/// Rules (D-Bus specification): starts with `/`; elements of `[A-Za-z0-9_]`, separated by
/// single slashes; no trailing slash except for the root path `/`.
public struct ObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path text.
    public let rawValue: String

    /// The root path `/`.
    public static let root = ObjectPath(unchecked: "/")

    /// Validates `string` as an object path.
    public init(_ string: String) throws(DBusError) {
        guard Self.isValid(string) else { throw .invalidName("object path '\(string)'") }
        rawValue = string
    }

    /// Validates `string`; `nil` when it is not an object path.
    public init?(validating string: String) {
        guard Self.isValid(string) else { return nil }
        rawValue = string
    }

    /// A literal path; an invalid literal is a programming error and traps.
    public init(stringLiteral value: String) {
        precondition(Self.isValid(value), "invalid object path literal '\(value)'")
        rawValue = value
    }

    init(unchecked: String) { rawValue = unchecked }

    public var description: String { rawValue }

    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The path elements (`[]` for the root).
    public var components: [String] {
        rawValue.split(separator: "/").map(String.init)
    }

    /// The last element (`""` for the root).
    public var lastComponent: String { components.last ?? "" }

    /// The parent path, `nil` for the root.
    public var parent: ObjectPath? {
        guard rawValue != "/" else { return nil }
        let parts = components.dropLast()
        return ObjectPath(unchecked: "/" + parts.joined(separator: "/"))
    }

    /// This path with one more element; the element must be `[A-Za-z0-9_]+`.
    public func appending(_ component: String) throws(DBusError) -> ObjectPath {
        guard !component.isEmpty, component.utf8.allSatisfy(Self.isElementByte) else {
            throw .invalidName("object path element '\(component)'")
        }
        return ObjectPath(unchecked: rawValue == "/" ? "/" + component : rawValue + "/" + component)
    }

    /// Whether this path is strictly below `ancestor`.
    public func isDescendant(of ancestor: ObjectPath) -> Bool {
        if ancestor.rawValue == "/" { return rawValue != "/" }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    /// Whether `string` is a valid object path.
    public static func isValid(_ string: String) -> Bool {
        let bytes = Array(string.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard isElementByte(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    static func isElementByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_")
    }
}
