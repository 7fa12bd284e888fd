/// Window and timing of a `TransferSender`.
public struct TransferSenderConfiguration: Sendable, Equatable {
    /// Stream bytes sent and not acknowledged, per recipient, at most (and never more than the
    /// receiver's window).
    public var window: Int
    /// What is in flight is also kept to this many seconds of the recipient's measured delivery
    /// rate: bluetoothd queues whatever it is given, so a full window on a slow link (27-byte
    /// link-layer payloads, a 50 ms interval) would sit in its queue for a minute, every
    /// retransmission behind it and every counter too.
    public var queueTarget: Double
    /// While the recipient sends to us too (a data frame of its own came in within `twoWayMemory`
    /// seconds), what is in flight covers `twoWayGain` smoothed round trips, at most
    /// `twoWayLimit` seconds of the delivery rate (each side's acknowledgements wait behind its
    /// data: the round trip holds both queues).
    public var twoWayGain: Double
    public var twoWayLimit: Double
    public var twoWayMemory: Double
    /// Frames in flight before the first rate is measured, and at least ever.
    public var initialFlight: Int
    public var minimumFlight: Int
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
    /// The retransmission time-out, at least, for a recipient on a carrier that loses nothing
    /// while it is up (the L2CAP lane: credit-based flow control over an acknowledged link
    /// layer), seconds. A frame there is late, not lost, and a copy would only queue behind it
    /// (fifteen centrals sharing one radio waited up to 16 s for their first frame, and copies
    /// took a third of the air); a carrier that goes down takes the session away, and the
    /// resume repairs what it lost.
    public var losslessRetransmissionTimeout: Double
    /// Bytes sent this many transmissions later being acknowledged while earlier ones are not
    /// means the earlier ones were lost (the link keeps order; a little reordering is allowed).
    public var reorderThreshold: Int
    /// `progress` at most this often per message (seconds).
    public var progressInterval: Double

    public init(
        window: Int = 64 << 10, queueTarget: Double = 0.5, twoWayGain: Double = 2, twoWayLimit: Double = 4,
        twoWayMemory: Double = 1, initialFlight: Int = 8, minimumFlight: Int = 4,
        deliveryTimeout: Double = 120, resumeTimeout: Double = 60, resumeHold: Double = 1,
        initialRetransmissionTimeout: Double = 1, minimumRetransmissionTimeout: Double = 1,
        maximumRetransmissionTimeout: Double = 10, losslessRetransmissionTimeout: Double = 20,
        reorderThreshold: Int = 3, progressInterval: Double = 0.25
    ) {
        self.window = window
        self.queueTarget = queueTarget
        self.twoWayGain = twoWayGain
        self.twoWayLimit = twoWayLimit
        self.twoWayMemory = twoWayMemory
        self.initialFlight = initialFlight
        self.minimumFlight = minimumFlight
        self.deliveryTimeout = deliveryTimeout
        self.resumeTimeout = resumeTimeout
        self.resumeHold = resumeHold
        self.initialRetransmissionTimeout = initialRetransmissionTimeout
        self.minimumRetransmissionTimeout = minimumRetransmissionTimeout
        self.maximumRetransmissionTimeout = maximumRetransmissionTimeout
        self.losslessRetransmissionTimeout = losslessRetransmissionTimeout
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
