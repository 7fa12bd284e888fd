import RelayProtocol

/// How a peer broke protocol 2 in a way no honest or merely buggy frame does, so that its link is
/// cut off from protocol 2 (its messages end, and nothing more of its session frames is read
/// until it connects again). A frame that cannot be parsed is not a breach: it is reported
/// (paced) and dropped.
public enum ProtocolBreach: Sendable, Equatable, CustomStringConvertible {
    /// An acknowledgement claimed bytes past the end of the message it names.
    case acknowledgedBeyondTheMessage(TransferID)
    /// More hellos on one link within `seconds` than an honest central ever writes.
    case helloFlood(count: Int, seconds: Int)

    public var description: String {
        switch self {
        case .acknowledgedBeyondTheMessage(let transfer):
            "it acknowledged bytes beyond the end of message #\(transfer.value)"
        case .helloFlood(let count, let seconds): "it said hello \(count) times in \(seconds) s on one link"
        }
    }
}
