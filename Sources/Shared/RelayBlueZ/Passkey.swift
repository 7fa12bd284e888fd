/// A 6-digit pairing passkey (LE passkey entry: 000000 to 999999), shown zero-padded.
public struct Passkey: Hashable, Sendable, CustomStringConvertible {
    /// The number, below 1 000 000.
    public let value: UInt32

    /// A passkey, if `value` has at most 6 digits.
    public init?(_ value: UInt32) {
        guard value < 1_000_000 else { return nil }
        self.value = value
    }

    /// Parses exactly 6 decimal digits (what the other side shows); nil for anything else.
    public init?(parsing text: String) {
        guard text.utf8.count == 6, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt32(text)
        else { return nil }
        self.value = value
    }

    public var description: String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
