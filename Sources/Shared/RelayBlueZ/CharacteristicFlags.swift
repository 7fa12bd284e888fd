/// The `Flags` of a GATT characteristic (`org.bluez.GattCharacteristic1.Flags`), as a set.
///
/// Converts to and from BlueZ's flag strings (`"read"`, `"write-without-response"`, ...).
public struct CharacteristicFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let broadcast = CharacteristicFlags(rawValue: 1 << 0)
    public static let read = CharacteristicFlags(rawValue: 1 << 1)
    public static let writeWithoutResponse = CharacteristicFlags(rawValue: 1 << 2)
    public static let write = CharacteristicFlags(rawValue: 1 << 3)
    public static let notify = CharacteristicFlags(rawValue: 1 << 4)
    public static let indicate = CharacteristicFlags(rawValue: 1 << 5)
    public static let authenticatedSignedWrites = CharacteristicFlags(rawValue: 1 << 6)
    public static let extendedProperties = CharacteristicFlags(rawValue: 1 << 7)
    public static let reliableWrite = CharacteristicFlags(rawValue: 1 << 8)
    public static let writableAuxiliaries = CharacteristicFlags(rawValue: 1 << 9)
    public static let encryptRead = CharacteristicFlags(rawValue: 1 << 10)
    public static let encryptWrite = CharacteristicFlags(rawValue: 1 << 11)
    public static let encryptNotify = CharacteristicFlags(rawValue: 1 << 12)
    public static let encryptIndicate = CharacteristicFlags(rawValue: 1 << 13)
    public static let encryptAuthenticatedRead = CharacteristicFlags(rawValue: 1 << 14)
    public static let encryptAuthenticatedWrite = CharacteristicFlags(rawValue: 1 << 15)
    public static let encryptAuthenticatedNotify = CharacteristicFlags(rawValue: 1 << 16)
    public static let encryptAuthenticatedIndicate = CharacteristicFlags(rawValue: 1 << 17)
    public static let secureRead = CharacteristicFlags(rawValue: 1 << 18)
    public static let secureWrite = CharacteristicFlags(rawValue: 1 << 19)
    public static let secureNotify = CharacteristicFlags(rawValue: 1 << 20)
    public static let secureIndicate = CharacteristicFlags(rawValue: 1 << 21)
    public static let authorize = CharacteristicFlags(rawValue: 1 << 22)

    /// Every flag with its BlueZ spelling, in BlueZ's documented order.
    public static let names: [(flag: CharacteristicFlags, name: String)] = [
        (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
        (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
        (.authenticatedSignedWrites, "authenticated-signed-writes"),
        (.extendedProperties, "extended-properties"), (.reliableWrite, "reliable-write"),
        (.writableAuxiliaries, "writable-auxiliaries"), (.encryptRead, "encrypt-read"),
        (.encryptWrite, "encrypt-write"), (.encryptNotify, "encrypt-notify"),
        (.encryptIndicate, "encrypt-indicate"), (.encryptAuthenticatedRead, "encrypt-authenticated-read"),
        (.encryptAuthenticatedWrite, "encrypt-authenticated-write"),
        (.encryptAuthenticatedNotify, "encrypt-authenticated-notify"),
        (.encryptAuthenticatedIndicate, "encrypt-authenticated-indicate"),
        (.secureRead, "secure-read"), (.secureWrite, "secure-write"), (.secureNotify, "secure-notify"),
        (.secureIndicate, "secure-indicate"), (.authorize, "authorize"),
    ]

    /// The flags named by BlueZ strings, plus the strings it did not recognise (kept, not dropped silently).
    public static func parse(_ strings: [String]) -> (flags: CharacteristicFlags, unknown: [String]) {
        var flags: CharacteristicFlags = []
        var unknown: [String] = []
        for string in strings {
            if let entry = names.first(where: { $0.name == string }) {
                flags.insert(entry.flag)
            } else {
                unknown.append(string)
            }
        }
        return (flags, unknown)
    }

    /// The flags named by BlueZ strings; unknown strings are ignored.
    public init(bluezStrings strings: [String]) { self = Self.parse(strings).flags }

    /// The BlueZ strings for these flags, in documented order.
    public var bluezStrings: [String] { Self.names.filter { contains($0.flag) }.map(\.name) }

    /// `read, write-without-response`.
    public var description: String { bluezStrings.joined(separator: ", ") }
}
