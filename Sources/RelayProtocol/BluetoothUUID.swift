/// A Bluetooth UUID, always held in its full 128-bit form.
///
/// Parses the 16-bit (`180d`, `0x180D`), 32-bit (`0000180d`) and 128-bit
/// (`6B5C4A86-CFB7-4031-98EB-09DF5E2543F0`) spellings, case-insensitively; short
/// forms are expanded with the Bluetooth base UUID `0000xxxx-0000-1000-8000-00805f9b34fb`.
/// `description` is the canonical lowercase 128-bit string BlueZ uses on D-Bus.
public struct BluetoothUUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 16 bytes, most significant first (the order of the string form).
    public let bytes: [UInt8]

    /// The Bluetooth base UUID `00000000-0000-1000-8000-00805f9b34fb`.
    public static let base = BluetoothUUID(uncheckedBytes: [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5f, 0x9b, 0x34, 0xfb,
    ])

    private init(uncheckedBytes: [UInt8]) { self.bytes = uncheckedBytes }

    /// A UUID from its 16 bytes (most significant first); `nil` unless exactly 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The 128-bit form of an assigned 32-bit UUID.
    public init(uint32 value: UInt32) {
        var full = Self.base.bytes
        full[0] = UInt8(truncatingIfNeeded: value >> 24)
        full[1] = UInt8(truncatingIfNeeded: value >> 16)
        full[2] = UInt8(truncatingIfNeeded: value >> 8)
        full[3] = UInt8(truncatingIfNeeded: value)
        self.bytes = full
    }

    /// The 128-bit form of an assigned 16-bit UUID (e.g. `0x180D`).
    public init(uint16 value: UInt16) { self.init(uint32: UInt32(value)) }

    /// Parses a 16-, 32- or 128-bit UUID string; `nil` when it is none of them.
    public init?(_ text: String) {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        let isHex: (Character) -> Bool = { $0.isHexDigit && $0.isASCII }
        if body.count == 4 || body.count == 8, body.allSatisfy(isHex), let value = UInt32(body, radix: 16) {
            self.init(uint32: value)
            return
        }
        guard text.count == 36 else { return nil }
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = groups.joined()
        guard hex.allSatisfy(isHex) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(16)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            result.append(byte)
            index = next
        }
        self.init(uncheckedBytes: result)
    }

    /// Whether this UUID lies in the Bluetooth base range (has a 16- or 32-bit short form).
    public var isBaseDerived: Bool { Array(bytes[4...]) == Array(Self.base.bytes[4...]) }

    /// The assigned 16-bit value, when the UUID has one.
    public var uint16: UInt16? {
        guard isBaseDerived, bytes[0] == 0, bytes[1] == 0 else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// Canonical lowercase 128-bit form, e.g. `6b5c4a86-cfb7-4031-98eb-09df5e2543f0`.
    public var description: String {
        let hex = Hex.string(bytes)
        var out = ""
        out.reserveCapacity(36)
        for (index, character) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append("-") }
            out.append(character)
        }
        return out
    }

    /// The shortest conventional spelling: `0x180d` for assigned 16-bit UUIDs, else the full form.
    public var shortDescription: String {
        if let short = uint16 { return Hex.fixed(UInt64(short), width: 4) }
        return description
    }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
