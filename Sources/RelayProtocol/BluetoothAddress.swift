/// A 48-bit Bluetooth device address, written `AA:BB:CC:DD:EE:FF` (uppercase, as BlueZ does).
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant (first written) first.
    public let bytes: [UInt8]

    /// An address from its six bytes; `nil` unless exactly six.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (any case; `_` or `-` also accepted as the separator,
    /// so the tail of a BlueZ device path `dev_AA_BB_CC_DD_EE_FF` parses too).
    public init?(_ text: String) {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "_" || $0 == "-" }
        guard parts.count == 6 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy({ $0.isHexDigit && $0.isASCII }),
                let byte = UInt8(part, radix: 16)
            else { return nil }
            result.append(byte)
        }
        self.bytes = result
    }

    /// `AA:BB:CC:DD:EE:FF`.
    public var description: String { formatted(separator: ":") }

    /// The form BlueZ uses in object paths: `AA_BB_CC_DD_EE_FF`.
    public var pathComponent: String { formatted(separator: "_") }

    private func formatted(separator: String) -> String {
        let digits = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]]) }.joined(separator: separator)
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
