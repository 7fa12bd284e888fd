import RelayApp
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// Version 2 with centrals (docs/protocol.md, "Version 2"): one session per relay central that
/// said hello on the session characteristic, the sender of the peripheral's messages (one for
/// all: its notifications reach every session), and each session's receiver. Part of
/// `PeripheralSession` (see `PeripheralSession+Delivery`); no I/O.
struct PeripheralDelivery: Sendable {
    /// One relay central.
    struct Session: Sendable {
        let number: SessionNumber
        let token: SessionToken
        /// The central's address: from bluetoothd when the hello came through `WriteValue`, else
        /// the one the hello names.
        var address: BluetoothAddress
        var receiver: TransferReceiver
        var inbound = InboundReports()
        /// Whether its link is up (a disconnect or unsubscription puts it away until its next hello).
        var linked = true
        /// When its link went down (nil while linked).
        var awaySince: Double?
        /// When its last `subscribed` line was reported (hellos on a live link are paced).
        var reportedAt = -Double.infinity
        /// When its last welcome was queued (a live link's hellos are answered at most once a second).
        var welcomedAt = -Double.infinity
        /// Counters received on the session characteristic.
        var counters = 0
        /// Whether its last hello and welcome said version 3: compact data frames both ways.
        var compact = false
        /// The L2CAP channel its last hello came on (nil: the session characteristic).
        var lane: LaneID?
    }

    /// A live session's hellos give a `subscribed` line at most this often (seconds).
    static let helloReportInterval = 5.0
    /// A live session's hellos are welcomed at most this often (seconds): a flood of hellos would
    /// put a welcome on the air ahead of every honest frame. A central waits 2 s before it says
    /// hello again.
    static let welcomeInterval = 1.0
    /// Hellos on one link within `helloWindow` beyond which a central is cut off from protocol 2:
    /// an honest one writes at most 5 (2 s apart) before it falls back to protocol 1, and one more
    /// each time its process starts again; over a link bluetoothd keeps, restarts spread over
    /// minutes never add up to a breach.
    static let maximumHellosPerWindow = 30
    /// Seconds over which hellos are counted (a sliding window).
    static let helloWindow = 60.0

    let settings: DeliverySettings
    var sessions: [SessionNumber: Session] = [:]
    /// The peripheral's messages, to every session (and the frames notified before them:
    /// welcomes, acknowledgements, aborts).
    var outgoing: OutgoingDelivery<SessionNumber>
    /// Protocol errors on the session characteristic from writers without a session.
    var strangers = InboundReports()
    /// Hellos refused because they carried another central's token (paced like protocol errors).
    var refusedHellos = RateLimiter(limit: InboundPipeline.reportsPerSecond, per: 1)

    init(settings: DeliverySettings) {
        self.settings = settings
        outgoing = OutgoingDelivery(settings: settings)
    }

    /// The session of `token`, if any.
    func session(of token: SessionToken) -> Session? { sessions.values.first { $0.token == token } }

    /// The lowest session number not in use.
    var freeNumber: SessionNumber? {
        SessionNumber.assignable.lazy.compactMap(SessionNumber.init).first { sessions[$0] == nil }
    }

    /// The session away the longest, if any: the one to end when a hello needs a number and all
    /// 254 are taken (addresses that come and go cannot lock honest centrals out).
    var longestAway: SessionNumber? {
        sessions.values.filter { !$0.linked }.min { ($0.awaySince ?? 0, $0.number) < ($1.awaySince ?? 0, $1.number) }?
            .number
    }

    /// Session `number`'s link went down (its central left, unsubscribed or lost its lane): it
    /// waits for its central's next hello, and both halves of delivery hold what is on its way
    /// for the resume.
    mutating func linkDown(_ number: SessionNumber, at now: Double) {
        guard sessions[number]?.linked == true else { return }
        sessions[number]?.linked = false
        sessions[number]?.awaySince = now
        sessions[number]?.receiver.linkDown(at: now)
        outgoing.sender.linkDown(number, at: now)
    }

    /// Sessions whose link is up.
    var linkedSessions: [Session] { sessions.values.filter(\.linked).sorted { $0.number < $1.number } }

    /// Whether messages are on their way (version 2).
    var isBusy: Bool { !outgoing.sender.isIdle || !outgoing.control.isEmpty }

    /// When `tick` has something to do.
    var nextDeadline: Double? {
        ([outgoing.sender.nextDeadline] + sessions.values.map(\.receiver.nextDeadline)).compactMap { $0 }.min()
    }
}
