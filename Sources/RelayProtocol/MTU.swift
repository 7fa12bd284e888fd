/// The ATT MTU of a link, and the largest characteristic value it can carry.
///
/// Valid MTUs are 23 (the ATT default, also used when the MTU is unknown) through 517.
public struct MTU: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The smallest ATT MTU, and the one assumed when the MTU is unknown.
    public static let minimum = 23
    /// The largest ATT MTU.
    public static let maximum = 517
    /// The largest value relay ever writes or notifies, whatever the MTU.
    ///
    /// Measured on BlueZ 5.66: at MTU 517 write commands of 511-514 bytes are accepted by the
    /// sending bluetoothd and then silently dropped by the receiving one, so values stop at 510.
    public static let valueLengthCeiling = 510

    /// The MTU assumed when the link's MTU is unknown: 23.
    public static let `default` = MTU(uncheckedValue: minimum)

    /// The MTU in bytes, within `minimum...maximum`.
    public let value: Int

    private init(uncheckedValue: Int) {
        value = uncheckedValue
    }

    /// The MTU `value`, or nil when it lies outside 23...517.
    public init?(_ value: Int) {
        guard (Self.minimum...Self.maximum).contains(value) else { return nil }
        self.value = value
    }

    /// The MTU `value` forced into 23...517 (for example a peer reporting 0 or 65535).
    public init(clamping value: Int) {
        self.value = min(max(value, Self.minimum), Self.maximum)
    }

    /// The largest characteristic value relay sends on this link: `min(MTU - 3, 510)` bytes.
    ///
    /// 3 bytes of every ATT PDU are opcode and handle; notifications longer than `MTU - 3` are
    /// silently truncated by BlueZ and longer write commands are refused.
    public var maxValueLength: Int { min(value - 3, Self.valueLengthCeiling) }

    /// The largest value one ATT write command or notification can carry: `MTU - 3` bytes (the
    /// attribute protocol's limit, before relay's own ceiling).
    public var attributeValueLimit: Int { value - 3 }

    /// Orders MTUs by size.
    public static func < (lhs: MTU, rhs: MTU) -> Bool { lhs.value < rhs.value }

    /// The MTU in decimal.
    public var description: String { String(value) }
}
