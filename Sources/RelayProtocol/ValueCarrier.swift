/// How a characteristic value crosses a link, which decides how many of the MTU's bytes it may use.
public enum ValueCarrier: Sendable, Hashable {
    /// An ATT write command (or write request) from a central: 1 byte of opcode and 2 of handle,
    /// so `MTU - 3` value bytes.
    case write
    /// A notification from a peripheral: `MTU - 5` value bytes.
    ///
    /// bluetoothd (5.66 and every later release) sends notifications to a client that enabled
    /// "Multiple Handle Value Notifications" in its Client Supported Features (every BlueZ central
    /// does) as ATT Multiple Handle Value Notification PDUs, which spend 2 more bytes on a length
    /// field and cut the value to `MTU - 5` bytes without a word (seen in the test bed: 244-byte
    /// values arrived as 242 at MTU 247). At MTU 517 relay's 510-byte ceiling is below that.
    case notification
    /// A value on the L2CAP lane: relay's 2-byte length in front of it (`LaneFraming`), in a
    /// service data unit of an LE credit-based channel, whose MTU stands for the link's.
    case lane

    /// The bytes of one value's carrier besides the value, within the MTU: 3 for a write, 5 for a
    /// notification (ATT), 2 on the lane (its length).
    public var overhead: Int {
        switch self {
        case .write: 3
        case .notification: 5
        case .lane: LaneFraming.headerLength
        }
    }
}
