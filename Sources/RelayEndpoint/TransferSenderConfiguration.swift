/// Window and timing of a `TransferSender`.
public struct TransferSenderConfiguration: Sendable, Equatable {
    /// Stream bytes sent and not acknowledged, per recipient.
    public var window: Int
    /// A message that an acknowledgement has not moved forward for this long fails (seconds).
    public var deliveryTimeout: Double
    /// A recipient whose link stays down longer than this fails its messages (seconds).
    public var resumeTimeout: Double
    /// After a link comes back, wait this long for the receiver's account before resending (seconds).
    public var resumeHold: Double
    /// Retransmission time-out before the first round-trip sample, and its bounds (seconds).
    public var initialRetransmissionTimeout: Double
    public var minimumRetransmissionTimeout: Double
    public var maximumRetransmissionTimeout: Double
    /// Bytes sent this many transmissions later being acknowledged while earlier ones are not
    /// means the earlier ones were lost (the link keeps order; a little reordering is allowed).
    public var reorderThreshold: Int
    /// `progress` at most this often per message (seconds).
    public var progressInterval: Double

    public init(
        window: Int = 32 << 10, deliveryTimeout: Double = 120, resumeTimeout: Double = 60, resumeHold: Double = 1,
        initialRetransmissionTimeout: Double = 1, minimumRetransmissionTimeout: Double = 1,
        maximumRetransmissionTimeout: Double = 10, reorderThreshold: Int = 3, progressInterval: Double = 0.25
    ) {
        self.window = window
        self.deliveryTimeout = deliveryTimeout
        self.resumeTimeout = resumeTimeout
        self.resumeHold = resumeHold
        self.initialRetransmissionTimeout = initialRetransmissionTimeout
        self.minimumRetransmissionTimeout = minimumRetransmissionTimeout
        self.maximumRetransmissionTimeout = maximumRetransmissionTimeout
        self.reorderThreshold = reorderThreshold
        self.progressInterval = progressInterval
    }
}

/// What a `TransferSender` counts, for `status` and the tests.
public struct TransferSenderCounts: Sendable, Equatable {
    /// Stream bytes handed over, retransmissions included.
    public var sentBytes = 0
    /// Of those, bytes sent before.
    public var resentBytes = 0
    /// Retransmission time-outs.
    public var timeouts = 0
}
