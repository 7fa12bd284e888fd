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

    /// The value length relay sends its frames in: 495 bytes when the link takes them, else 244,
    /// else `maxValueLength`.
    ///
    /// An ATT write command or notification of `n` value bytes is an L2CAP PDU of `n + 7` bytes,
    /// which the link layer carries in 251-byte payloads once data length extension is on: 495
    /// bytes fill two payloads exactly and 244 one, where 510 would need a third of 15 bytes
    /// (measured on the test bed's radio: 48.1 against 33.2 KiB/s, docs/performance.md). Without
    /// data length extension (27-byte payloads) the difference is below 1 %.
    public var sendValueLength: Int {
        let limit = maxValueLength
        if limit >= Self.twoPayloadValue { return Self.twoPayloadValue }
        if limit >= Self.onePayloadValue { return Self.onePayloadValue }
        return limit
    }

    /// Value bytes that fill two 251-byte link-layer payloads: 2 x 251 - 4 (L2CAP) - 3 (ATT).
    public static let twoPayloadValue = 495
    /// Value bytes that fill one 251-byte link-layer payload: 251 - 4 - 3.
    public static let onePayloadValue = 244

    /// The largest value one ATT write command or notification can carry: `MTU - 3` bytes (the
    /// attribute protocol's limit, before relay's own ceiling).
    public var attributeValueLimit: Int { value - 3 }

    /// Orders MTUs by size.
    public static func < (lhs: MTU, rhs: MTU) -> Bool { lhs.value < rhs.value }

    /// The MTU in decimal.
    public var description: String { String(value) }
}
