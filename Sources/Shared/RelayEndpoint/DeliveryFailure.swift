import RelayProtocol

/// Why a version-2 message failed for a recipient (`TransferSender`).
public enum DeliveryFailure: Sendable, Equatable, CustomStringConvertible {
    /// The receiver refused it or gave it up.
    case refused(AcknowledgementStatus)
    /// No acknowledgement moved it forward for the delivery time-out.
    case noProgress(seconds: Int)
    /// The recipient's link stayed down longer than the resume time-out.
    case notResumed(seconds: Int)
    /// The recipient is a new process now: what the old one held is gone.
    case recipientRestarted
    /// The recipient went away for good; the text says how.
    case recipientGone(String)
    /// The user or the program stopped it.
    case cancelled

    public var description: String {
        switch self {
        case .refused(let status): "\(status)"
        case .noProgress(let seconds): "no progress for \(seconds) s"
        case .notResumed(let seconds): "the link did not come back within \(seconds) s"
        case .recipientRestarted: "the receiving program restarted"
        case .recipientGone(let why): why
        case .cancelled: "cancelled"
        }
    }
}
