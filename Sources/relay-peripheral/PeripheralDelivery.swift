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
    private(set) var sessions: [SessionNumber: Session] = [:]
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

    /// The sessions of the central at `address` wait for its next hello.
    mutating func linkDown(of address: BluetoothAddress, at now: Double) {
        for number in sessions.keys.sorted() where sessions[number]?.address == address { linkDown(number, at: now) }
    }

    /// Channel `id` is gone: the sessions it carried wait for their centrals' next hello (on GATT,
    /// or a new channel).
    mutating func laneGone(_ id: LaneID, at now: Double) {
        for number in sessions.keys.sorted() where sessions[number]?.lane == id {
            sessions[number]?.lane = nil
            linkDown(number, at: now)
        }
    }

    /// Whether channel `id` carries a session.
    func carries(_ id: LaneID) -> Bool { sessions.values.contains { $0.lane == id } }

    /// A hello from `known`'s central process again, at `address` on `lane`: its session resumes
    /// both ways. Returns what its receiver did, whether to report it (`subscribed`: at most every
    /// `helloReportInterval` on a live link) and whether to welcome it (at most every
    /// `welcomeInterval` on a live link, unless it moved between GATT and a channel).
    mutating func resume(
        _ known: Session, at address: BluetoothAddress, lane: LaneID?, window: Int, compact: Bool, next: TransferID,
        now: Double
    ) -> (received: [TransferReceiver.Action], report: Bool, welcome: Bool) {
        var session = known
        session.address = address
        session.linked = true
        session.awaySince = nil
        session.compact = compact
        let movedLane = session.lane != lane
        session.lane = lane
        // A hello again on a live link (its welcome was lost, a reconnection bluetoothd had not
        // yet reported as a disconnection, or a flood) is welcomed at most once a second and
        // reported at most every 5 s.
        let report = !known.linked || now - known.reportedAt >= Self.helloReportInterval
        if report { session.reportedAt = now }
        let welcome = !known.linked || movedLane || now - known.welcomedAt >= Self.welcomeInterval
        if welcome { session.welcomedAt = now }
        outgoing.sender.linkUp(known.number, window: window, compact: compact, at: now)
        let received = session.receiver.linkUp(next: next, at: now)
        sessions[known.number] = session
        return (received, report, welcome)
    }

    /// Whether a session at `address` was welcomed less than `welcomeInterval` before `now`.
    func welcomedLately(_ address: BluetoothAddress, at now: Double) -> Bool {
        sessions.values.contains { $0.address == address && now - $0.welcomedAt < Self.welcomeInterval }
    }

    /// A new session `number` for central process `token` at `address` (on `lane`): what its
    /// receiver did on the hello.
    mutating func start(
        _ number: SessionNumber, token: SessionToken, at address: BluetoothAddress, lane: LaneID?, window: Int,
        compact: Bool, next: TransferID, now: Double
    ) -> [TransferReceiver.Action] {
        var receiver = TransferReceiver(configuration: settings.receiverConfiguration, session: number)
        let received = receiver.linkUp(next: next, at: now)
        sessions[number] = Session(
            number: number, token: token, address: address, receiver: receiver, reportedAt: now, welcomedAt: now,
            compact: compact, lane: lane)
        outgoing.sender.linkUp(number, window: window, compact: compact, at: now)
        return received
    }

    /// Ends session `number` for good: the session (nil: there was none).
    mutating func end(_ number: SessionNumber) -> Session? {
        sessions.removeValue(forKey: number)
    }

    /// Session `number`'s central wrote a counter on the session characteristic.
    mutating func countCounter(of number: SessionNumber) {
        sessions[number]?.counters += 1
    }

    /// Session `number`'s receiver takes something (a frame, an abort, a save, the time): what it
    /// did. A frame that brought new bytes says the central is sending: the sender widens its
    /// flight. In place: a copy of the session would copy the partial message on every frame.
    mutating func receive(
        of number: SessionNumber, at now: Double, _ body: (inout TransferReceiver) -> [TransferReceiver.Action]
    ) -> [TransferReceiver.Action] {
        guard sessions[number] != nil else { return [] }
        let fresh = sessions[number]!.receiver.counts.framesWithNewBytes
        let received = body(&sessions[number]!.receiver)
        if sessions[number]!.receiver.counts.framesWithNewBytes > fresh {
            outgoing.sender.heardData(from: number, at: now)
        }
        return received
    }

    /// A protocol error of session `number`'s central: the event to report (nil: paced, or no such session).
    mutating func protocolError(
        _ error: SessionFrameError, of number: SessionNumber, from peer: PeerName, at now: Double
    ) -> TransferEvent? {
        sessions[number]?.inbound.protocolError(error, from: peer, at: now)
    }

    /// Keeps `reports` as session `number`'s (after they made its receiver's actions into the program's).
    mutating func keep(_ reports: InboundReports, of number: SessionNumber) {
        sessions[number]?.inbound = reports
    }

    /// Forgets the sessions away whose messages both ways are settled (past the resume time-out).
    mutating func forgetSettled() {
        for (number, session) in sessions
        where !session.linked && !outgoing.sender.recipients.contains(number) && session.receiver.inProgress == nil
            && session.receiver.awaitingSave == 0
        {
            sessions[number] = nil
        }
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
