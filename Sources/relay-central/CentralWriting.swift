import RelayApp
import RelayEndpoint
import RelayProtocol

/// The value being written (one at a time) and what it completes.
enum InFlightWrite {
    /// A counter or a version-1 frame from the outbox.
    case outbox(Outbox<CommandToken?>.Value)
    /// A hello, acknowledgement or abort.
    case control
    /// A version-2 data frame; `completes` when it carries a message's last byte the first time.
    case data(number: Int, transfer: TransferID, completes: Bool)
    /// Text for a UART device's RX.
    case uart(CentralUART.Value)
}

/// relay-central's writes: one value at a time (the handshake's and acknowledgements' frames
/// first, then counters and version-1 frames, then version-2 data), the counter, the numbers of
/// messages. Part of `CentralSession` (see `CentralSession+Transfer`).
struct CentralWriting {
    /// Counters and version-1 frames to write, with the command waiting for each (nil: none).
    var outbox = Outbox<CommandToken?>()
    /// The value being written (one at a time).
    var inFlight: InFlightWrite?
    /// The value in flight, when the full write socket did not take it yet.
    var blockedWrite: BlockedWrite?
    var chunker = Chunker(carrier: .write)
    /// The counter `write` writes next.
    var nextCounter = Counter(0)
    var messagesSent = 0
    /// The number the next message gets (from 1; `id` in the sender's events).
    var nextMessageNumber = 1
}

/// What the peripheral notifies: counters, and messages through the inbound pipeline (protocol
/// 1) with the received ones numbered for `--save-dir`. Part of `CentralSession`.
struct CentralReceiving {
    /// Counters and version-1 messages the peripheral notifies.
    var inbound: InboundPipeline
    /// Complete messages received (numbered for `--save-dir`).
    var arrivals: MessageArrivals
    var lastReceived: Counter?

    init(settings: CentralSettings) {
        inbound = InboundPipeline(maxMessage: settings.maxMessage)
        arrivals = MessageArrivals(saveDirectory: settings.saveDirectory)
    }

    var messagesReceived: Int { arrivals.count }
}

/// The `read` command in progress: both characteristics are read, and it finishes with the second.
struct CentralReading: Equatable, Sendable {
    var token: CommandToken?
    var pending = 0
    var failures: [ReadFailure] = []
    /// Values of the notify characteristic seen while a read of it is pending on the signal
    /// path: reading changes `Value` too, and that change is the read, not a notification.
    var valuesDuringRead: [[UInt8]]?
}
