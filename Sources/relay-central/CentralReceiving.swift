import RelayApp
import RelayEndpoint
import RelayProtocol

/// What the peripheral notifies: counters, and messages through the inbound pipeline (protocol
/// 1) with the received ones numbered for `--save-dir`. Part of `CentralSession`.
struct CentralReceiving {
    /// Counters and version-1 messages the peripheral notifies.
    var inbound: InboundPipeline
    /// Complete messages received (numbered for `--save-dir`).
    var arrivals: MessageArrivals
    private(set) var lastReceived: Counter?

    init(settings: CentralSettings) {
        inbound = InboundPipeline(maxMessage: settings.maxMessage)
        arrivals = MessageArrivals(saveDirectory: settings.saveDirectory)
    }

    /// The link ended (`why`): a version-1 message in progress is dropped, and said so.
    mutating func linkEnded(_ why: String, from peripheral: PeerName) -> TransferEvent? {
        inbound.reset(because: .linkEnded(why)).flatMap { TransferEvent($0, from: peripheral) }
    }

    /// A counter the peripheral notified (on the notify or the session characteristic): the last
    /// received, reported.
    mutating func heard(_ counter: Counter, from peripheral: PeerName) -> CentralAction {
        lastReceived = counter
        return .report(.transfer(.counter(from: peripheral, counter)))
    }

    var messagesReceived: Int { arrivals.count }
}
