import RelayProtocol

/// The values a `TransferReceiver` takes and gives: its configuration, its actions, why a
/// partial message was dropped, and its counts.
extension TransferReceiver {
    /// Limits and timing.
    public struct Configuration: Sendable, Equatable {
        /// Stream bytes held beyond the first gap (out of order). Frames beyond are dropped.
        public var window: Int
        /// The largest message accepted, in bytes.
        public var maxMessage: Int
        /// The largest file accepted (a message whose header carries a name), in bytes.
        public var maxFile: Int
        /// How long a partial message is kept while the sender's link is down (seconds).
        public var resumeTimeout: Double
        /// How long a partial message may go without a frame while the link is up (seconds).
        public var stallTimeout: Double
        /// An acknowledgement goes at most this long after new bytes arrived (seconds).
        public var ackDelay: Double
        /// An acknowledgement goes at once after this many new bytes in order.
        public var ackEvery: Int
        /// Duplicates of a finished message are answered at most this often (seconds).
        public var duplicateAckInterval: Double
        /// `progress` at most this often per message (seconds).
        public var progressInterval: Double
        /// Whether a complete message waits for `saved` before its final acknowledgement (the
        /// owner saves every message, `--save-dir`): `delivered` then means saved, and a save that
        /// failed is acknowledged `notSaved`.
        public var acknowledgesAfterSaving: Bool
        /// The most separate ranges held out of order at once (more would cost time per frame).
        public var maximumHeldRanges: Int

        public init(
            window: Int = 64 << 10, maxMessage: Int = 1 << 20, maxFile: Int = 100 << 20, resumeTimeout: Double = 60,
            stallTimeout: Double = 120,
            ackDelay: Double = 0.05, ackEvery: Int? = nil, duplicateAckInterval: Double = 0.5,
            progressInterval: Double = 0.25, maximumHeldRanges: Int = 128, acknowledgesAfterSaving: Bool = false
        ) {
            self.window = window
            self.maxMessage = maxMessage
            self.maxFile = maxFile
            self.resumeTimeout = resumeTimeout
            self.stallTimeout = stallTimeout
            self.ackDelay = ackDelay
            self.ackEvery = ackEvery ?? max(1, window / 4)
            self.duplicateAckInterval = duplicateAckInterval
            self.progressInterval = progressInterval
            self.maximumHeldRanges = maximumHeldRanges
            self.acknowledgesAfterSaving = acknowledgesAfterSaving
        }
    }

    /// Why a partial message was given up.
    public enum DropCause: Sendable, Equatable, CustomStringConvertible {
        /// The sender's link stayed down longer than the resume time-out.
        case notResumed(seconds: Int)
        /// No frame for the stall time-out while the link was up.
        case stalled(seconds: Int)
        /// The sender gave it up (an abort frame).
        case senderGaveUp(AbortReason)
        /// The sender's next message is a later one: it gave this one up while the link was down.
        case senderMovedOn
        /// The sender process is a new one (another token), or the owner stopped receiving.
        case senderGone(String)
        /// The message broke the protocol: too large, bad header, bad checksum.
        case refused(AcknowledgementStatus)

        public var description: String {
            switch self {
            case .notResumed(let seconds): "the sender did not come back within \(seconds) s"
            case .stalled(let seconds): "stalled: no frame for \(seconds) s"
            case .senderGaveUp(let reason): "the sender gave it up (\(reason))"
            case .senderMovedOn: "the sender gave it up while the link was down"
            case .senderGone(let why): why
            case .refused(let status): "\(status)"
            }
        }
    }

    /// What a partial message had come to when it was given up.
    public struct Dropped: Sendable, Equatable {
        public let transfer: TransferID
        /// Its header, if that had arrived.
        public let header: MessageHeader?
        /// Message bytes (not counting the header) held in order.
        public let received: Int
        public let cause: DropCause

        public init(transfer: TransferID, header: MessageHeader?, received: Int, cause: DropCause) {
            self.transfer = transfer
            self.header = header
            self.received = received
            self.cause = cause
        }
    }

    /// What the owner does.
    public enum Action: Sendable, Equatable {
        /// Send this acknowledgement (to the sender).
        case acknowledge(Acknowledgement)
        /// A message's header arrived: what is coming (for `receiving` reports).
        case started(TransferID, MessageHeader)
        /// How far a message has come: message bytes in order of its total, at most 4 a second.
        case progress(TransferID, received: Int, total: Int)
        /// A whole message, CRC-32C checked, once (text and binary messages).
        case deliver(TransferID, MessageHeader, Message)
        /// The next bytes of a file, in order from its first byte: the owner appends them to
        /// what it keeps of the file (they are not held here).
        case write(TransferID, [UInt8])
        /// A whole file (every byte went out in `write`), CRC-32C checked, once; `sha256` of its bytes.
        case deliverFile(TransferID, MessageHeader, sha256: SHA256.Digest)
        /// A partial message was given up (or refused).
        case dropped(Dropped)
    }

    /// Counts for `status`.
    public struct Counts: Sendable, Equatable {
        /// Frames whose every byte was already held (or of a finished message).
        public var duplicateFrames = 0
        /// Frames of a message this receiver does not expect now (another central's, or old).
        public var ignoredFrames = 0
        /// Frames (partly) beyond the window, cut off.
        public var beyondWindow = 0
        /// Out-of-order frames refused because what is held out of order was already in
        /// `maximumHeldRanges` pieces (the sender sends them again).
        public var fragmentedFrames = 0
        /// Messages delivered.
        public var delivered = 0
        /// Frames that brought bytes not held before: what tells the sender beside this receiver
        /// that its peer is really sending (`TransferSender.heardData`), which a frame it ignores
        /// or already held does not.
        public var framesWithNewBytes = 0
    }
}
