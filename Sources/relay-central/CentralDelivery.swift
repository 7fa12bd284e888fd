import RelayApp
import RelayEndpoint
import RelayProtocol
import RelayREPL

/// The peripheral, as the version-2 sender's one recipient.
enum PeripheralRecipient: Hashable, Comparable, Sendable {
    case peripheral
}

/// Version 2 with the peripheral (docs/protocol.md, "Version 2"): where the handshake stands,
/// the sender of the central's messages, the receiver of the peripheral's, and what is waiting.
/// Part of `CentralSession` (see `CentralSession+Delivery`); no I/O.
struct CentralDelivery: Sendable {
    /// Where version 2 stands on the current link.
    enum Phase: Equatable, Sendable {
        /// No link, or one without the session characteristic.
        case idle
        /// The hello is out (`attempt` of `helloAttempts`), since `since`.
        case greeting(attempt: Int, since: Double)
        /// The welcome came: the peripheral calls this central `session`.
        case established(SessionNumber)
        /// The peripheral offers version 2 but did not answer: version 1 on this link.
        case fallback
    }

    /// Seconds between hellos, and how many are sent before giving up on version 2.
    static let helloInterval = 2.0
    static let helloAttempts = 5

    /// How many hellos are sent on this link before giving up on version 2: `helloAttempts`,
    /// or for `resumeTimeout` once this link had a session (`resumingOnLink`).
    var greetingAttempts: Int {
        guard resumingOnLink else { return Self.helloAttempts }
        return max(Self.helloAttempts, Int((settings.resumeTimeout / Self.helloInterval).rounded(.up)))
    }

    /// Where the L2CAP lane of the current link stands.
    enum Lane: Equatable, Sendable {
        /// Not tried on this link (or not offered, or `--lane gatt`): GATT.
        case none
        /// The lane characteristic is being read.
        case reading
        /// The channel to the offer's PSM is opening (`attempt`: 1, or 2 after a refusal).
        case opening(LaneOffer, attempt: Int)
        /// The channel is open: protocol 2's frames go on it, cut for `mtu`.
        /// Its welcome counts only when it names the offer's peripheral token.
        case open(LaneOffer, mtu: MTU, deframer: LaneDeframer)
    }

    let settings: DeliverySettings
    private(set) var phase = Phase.idle
    private(set) var lane = Lane.none
    /// Whether this link's welcome said version 3: compact data frames both ways.
    private(set) var compact = false
    /// The link's session broke off with its lane: the peripheral speaks protocol 2 (it welcomed
    /// this central on this link), so the hello on GATT is said again until `resumeTimeout`
    /// before the link falls back to protocol 1 (a peripheral busy with fifteen centrals took
    /// longer than 10 s to answer, and its central lost delivery for the rest of the link).
    private(set) var resumingOnLink = false
    /// The peripheral process of the last welcome (a new one means: start over).
    private(set) var peripheralToken: SessionToken?
    /// The central's messages (and the frames written before them: hellos, acknowledgements, aborts).
    var outgoing: OutgoingDelivery<PeripheralRecipient>
    /// The peripheral's messages, once a welcome said who it is.
    var receiver: TransferReceiver?
    var inbound = InboundReports()
    /// Messages typed while the handshake decides the version (their commands wait in the
    /// session's `commands`).
    private(set) var waiting: [(number: Int, message: Message)] = []

    init(settings: DeliverySettings) {
        self.settings = settings
        outgoing = OutgoingDelivery(settings: settings)
    }

    /// The session number of an established link.
    var session: SessionNumber? {
        if case .established(let session) = phase { return session }
        return nil
    }

    /// The room for frames on the open lane (nil: frames go on GATT).
    var laneMTU: MTU? {
        if case .open(_, let mtu, _) = lane { return mtu }
        return nil
    }

    /// Whether messages are waiting or on their way (version 2).
    var isBusy: Bool { !outgoing.sender.isIdle || !waiting.isEmpty }

    /// When `tick` has something to do.
    var nextDeadline: Double? {
        var deadlines = [outgoing.sender.nextDeadline, receiver?.nextDeadline].compactMap { $0 }
        if case .greeting(_, let since) = phase { deadlines.append(since + Self.helloInterval) }
        return deadlines.min()
    }

    // MARK: The handshake

    /// A new link is being set up: nothing of the old one's handshake counts.
    mutating func newLink() {
        phase = .idle
        resumingOnLink = false
    }

    /// The hello goes (`attempt` of this link's), the first one afresh: the control frames of the
    /// link before go.
    mutating func greet(attempt: Int = 1, address: BluetoothAddress?, at now: Double) {
        if attempt == 1 {
            compact = false
            outgoing.control.removeAll()
        }
        phase = .greeting(attempt: attempt, since: now)
        outgoing.control.append(hello(address: address))
    }

    /// The welcome: both halves go up on this link (resuming what the same peripheral process
    /// held, starting over with another), and the messages that waited for it are queued. Returns
    /// what the sender and the receiver ask of the session.
    mutating func welcome(
        _ welcome: Welcome, at now: Double
    ) -> (outbound: [TransferSender<PeripheralRecipient>.Action], received: [TransferReceiver.Action]) {
        phase = .established(welcome.session)
        resumingOnLink = false
        let window = max(1, min(settings.window, Int(welcome.window)))
        compact = welcome.version >= SessionFrame.highestVersion
        // On the lane nothing is lost while it is up: a time-out there means late, not lost.
        let lossless: Bool
        if case .open = lane { lossless = true } else { lossless = false }
        var outbound: [TransferSender<PeripheralRecipient>.Action] = []
        var received: [TransferReceiver.Action] = []
        if let known = peripheralToken, known == welcome.peripheral, var resumed = receiver {
            // The same peripheral process: resume both ways.
            outgoing.sender.linkUp(.peripheral, window: window, compact: compact, lossless: lossless, at: now)
            resumed.session = welcome.session
            received = resumed.linkUp(next: welcome.next, at: now)
            receiver = resumed
        } else {
            if peripheralToken != nil {
                // Another peripheral process (or another peripheral): what the old one held is gone.
                outbound = outgoing.sender.restarted(
                    .peripheral, window: window, compact: compact, lossless: lossless, at: now)
                received = receiver?.close("the peripheral restarted") ?? []
            } else {
                outgoing.sender.linkUp(.peripheral, window: window, compact: compact, lossless: lossless, at: now)
            }
            var fresh = TransferReceiver(configuration: settings.receiverConfiguration, session: welcome.session)
            received += fresh.linkUp(next: welcome.next, at: now)
            receiver = fresh
        }
        peripheralToken = welcome.peripheral
        for message in waiting { enqueue(message.message, number: message.number, at: now) }
        waiting = []
        return (outbound, received)
    }

    /// Queues `message` (the program's message `number`) for the peripheral.
    mutating func enqueue(_ message: Message, number: Int, at now: Double) {
        outgoing.enqueue(message, number: number, for: [.peripheral], at: now)
    }

    /// This link speaks version 1 from now on: the messages that waited for the handshake, for
    /// the version-1 outbox.
    mutating func fallBack() -> [(number: Int, message: Message)] {
        phase = .fallback
        outgoing.control.removeAll()
        defer { waiting = [] }
        return waiting
    }

    /// Protocol 2 ends with the peripheral (`why`): its messages both ways end. Returns what the
    /// sender and the receiver ask of the session.
    mutating func end(
        _ why: String
    ) -> (outbound: [TransferSender<PeripheralRecipient>.Action], received: [TransferReceiver.Action]) {
        let outbound = outgoing.sender.remove(.peripheral, why)
        let received = receiver?.close(why) ?? []
        receiver = nil
        peripheralToken = nil
        return (outbound, received)
    }

    /// `message` (the program's number `number`) waits for the handshake to decide the version.
    mutating func hold(_ message: Message, number: Int) {
        waiting.append((number, message))
    }

    /// The messages that waited for the handshake fail (the link ended for good): their numbers.
    mutating func failWaiting() -> [Int] {
        defer { waiting = [] }
        for _ in waiting { outgoing.countFailure() }
        return waiting.map(\.number)
    }

    /// The link went down with the session held: both halves wait for the resume.
    mutating func linkDown(at now: Double) {
        outgoing.sender.linkDown(.peripheral, at: now)
        receiver?.linkDown(at: now)
    }

    /// The lane stops carrying this link's frames: a session established on it waits for the
    /// resume (its hello is said until the resume time-out), and the handshake starts again.
    // MARK: The lane

    /// The lane is not used on this link (not tried, not offered, or given up).
    mutating func laneUnused() {
        lane = .none
    }

    /// The lane characteristic is being read.
    mutating func readingLanePSM() {
        lane = .reading
    }

    /// Whether the lane characteristic's value is awaited.
    var readsLanePSM: Bool { lane == .reading }

    /// The channel to `offer`'s PSM is opening (try `attempt`).
    mutating func openingLane(_ offer: LaneOffer, attempt: Int) {
        lane = .opening(offer, attempt: attempt)
    }

    /// The channel that was opening opened: frames are cut for `mtu` on it. False when none was opening.
    mutating func laneOpened(mtu: MTU) -> Bool {
        guard case .opening(let offer, _) = lane else { return false }
        lane = .open(offer, mtu: mtu, deframer: LaneDeframer())
        return true
    }

    /// Bytes on the open channel: the offer it was opened for and the values the bytes complete
    /// (nil: no channel is open). Broken framing is thrown (the channel is then to be closed).
    mutating func laneReceived(_ bytes: [UInt8]) throws(LaneFrameError) -> (offer: LaneOffer, values: [[UInt8]])? {
        guard case .open(let offer, let mtu, var deframer) = lane else { return nil }
        let values = try deframer.take(bytes)
        lane = .open(offer, mtu: mtu, deframer: deframer)
        return (offer, values)
    }

    /// The lane stopped carrying this link's frames: what was on its way waits for the resume.
    mutating func laneBroke(at now: Double) {
        lane = .none
        if session != nil {
            resumingOnLink = true
            linkDown(at: now)
        }
        phase = .idle
    }

    /// The link ended: no handshake, no lane, no control frames; whether a session was established.
    mutating func linkEnded() -> Bool {
        outgoing.control.removeAll()
        lane = .none
        defer { newLink() }
        return session != nil
    }

    /// The hello for this link.
    func hello(address: BluetoothAddress?) -> SessionFrame {
        .hello(
            Hello(
                token: settings.token, address: address ?? BluetoothAddress(bytes: [0, 0, 0, 0, 0, 0])!,
                window: UInt32(settings.window), next: outgoing.sender.nextTransfer(for: .peripheral)))
    }
}
