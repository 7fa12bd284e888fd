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

    /// The largest L2CAP lane MTU relay uses: room for the largest lane value and its length.
    public static let laneMaximum = LaneFraming.largestValue + LaneFraming.headerLength

    /// An L2CAP lane's MTU, the largest service data unit its peer takes, as an MTU: kept within
    /// 23...`laneMaximum`, so its values (`.lane`: `channelMTU - 2`) stay within the lane's
    /// 8192-byte values. Unlike an ATT MTU it may exceed 517.
    public init(laneChannelMTU channelMTU: Int) {
        value = min(max(channelMTU, Self.minimum), Self.laneMaximum)
    }

    /// This lane MTU as relay cuts values for it beside a GATT link of ATT MTU `link`.
    ///
    /// A link whose ATT MTU is below 247 is taken for one without data length extension (27-byte
    /// link-layer payloads, the test bed's old radio): there a value of 32 PDUs would take four
    /// seconds of air, and what is in flight (at least four values) twenty, so values stay at two
    /// PDUs (the MTU at most 517). Elsewhere the channel's own MTU stands.
    public func lane(besideAttributeMTU link: MTU) -> MTU {
        link.value >= Self.longPayloadAttributeMTU ? self : Swift.min(self, MTU(clamping: Self.maximum))
    }

    /// The smallest ATT MTU taken as a sign of data length extension: 247 fills one 251-byte
    /// link-layer payload (a link with 27-byte payloads has no use for more than 23).
    static let longPayloadAttributeMTU = 247

    /// The largest characteristic value relay sends on this link as `carrier`:
    /// `min(MTU - carrier.overhead, 510)` bytes; on the lane, whose values are not ATT's,
    /// `min(MTU - 2, 8192)`.
    ///
    /// Longer write commands are refused; longer notifications are silently truncated by BlueZ
    /// (to `MTU - 3`, or to `MTU - 5` in a Multiple Handle Value Notification, see
    /// `ValueCarrier.notification`).
    public func maxValueLength(_ carrier: ValueCarrier) -> Int {
        min(value - carrier.overhead, carrier == .lane ? LaneFraming.largestValue : Self.valueLengthCeiling)
    }

    /// The value length relay sends its frames in as `carrier`: the value that fills two 251-byte
    /// link-layer payloads (495 bytes written, 493 notified) when the link takes it, else the one
    /// that fills one (244 written, 242 notified), else `maxValueLength(carrier)`. On the lane
    /// first the value that fills 32 PDUs of MPS 247 (7900 bytes) when the channel takes it.
    ///
    /// An ATT PDU of `n` value bytes is an L2CAP PDU of `n + 4 + carrier.overhead` bytes, which
    /// the link layer carries in 251-byte payloads once data length extension is on: a value that
    /// fills two payloads exactly beats 510, which needs a third of a few bytes (measured on the
    /// test bed's radio: 48.1 against 33.2 KiB/s, docs/performance.md). Without data length
    /// extension (27-byte payloads) the difference is below 1 %.
    public func sendValueLength(_ carrier: ValueCarrier) -> Int {
        let limit = maxValueLength(carrier)
        if carrier == .lane, limit >= Self.laneDataValue { return Self.laneDataValue }
        let two = Self.twoPayloadValue(carrier)
        let one = Self.onePayloadValue(carrier)
        if limit >= two { return two }
        if limit >= one { return one }
        return limit
    }

    /// Value bytes that fill two 251-byte link-layer payloads: 2 x 251 - 4 (L2CAP) - the ATT
    /// overhead of `carrier`. On the lane the channel cuts each value into PDUs of its MPS (the
    /// controller's 251-byte buffer less the 4-byte L2CAP header), each with its header, the
    /// first with the 2-byte SDU length too: 2 x 251 - 2 x 4 - 2 - 2 = 490 (a 495-byte value
    /// took three PDUs, the third of 7 bytes: 28.9 against 47.0 KiB/s on the laptop radio).
    private static func twoPayloadValue(_ carrier: ValueCarrier) -> Int {
        carrier == .lane ? 2 * 251 - 2 * 4 - 2 - carrier.overhead : 2 * 251 - 4 - carrier.overhead
    }
    /// Lane value bytes that fill 32 PDUs of MPS 247: 32 x 247 - 2 (SDU length) - 2 (relay's
    /// length). The receiving kernel returns credits as each service data unit arrives (and again
    /// as it is read), in a PDU of its own that takes a turn of the connection event from the data
    /// going the same way: both ways at once, with two-PDU values a third of each direction's
    /// turns were credits, with eight a ninth (docs/performance.md, *The L2CAP lane*); with 32,
    /// one in 20. More than 32 would need more credits out than a receiver with the kernel's
    /// default buffer keeps (52 PDUs; see `L2CAPSocket.receiveBuffer`).
    private static let laneDataValue = 32 * laneMPS - 2 - LaneFraming.headerLength
    /// The PDU size (MPS) of a channel over 251-byte link-layer payloads: 251 less the 4-byte
    /// L2CAP header.
    private static let laneMPS = 251 - 4

    /// Value bytes that fill one 251-byte link-layer payload: 251 - 4 - the ATT overhead (on the
    /// lane also the SDU length).
    private static func onePayloadValue(_ carrier: ValueCarrier) -> Int {
        carrier == .lane ? 251 - 4 - 2 - carrier.overhead : 251 - 4 - carrier.overhead
    }

    /// The largest value one ATT write command or notification can carry: `MTU - 3` bytes (the
    /// attribute protocol's limit, before relay's own ceiling).
    public var attributeValueLimit: Int { value - 3 }

    /// Orders MTUs by size.
    public static func < (lhs: MTU, rhs: MTU) -> Bool { lhs.value < rhs.value }

    /// The MTU in decimal.
    public var description: String { String(value) }
}
