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
    var phase = Phase.idle
    var lane = Lane.none
    /// Whether this link's welcome said version 3: compact data frames both ways.
    var compact = false
    /// The link's session broke off with its lane: the peripheral speaks protocol 2 (it welcomed
    /// this central on this link), so the hello on GATT is said again until `resumeTimeout`
    /// before the link falls back to protocol 1 (a peripheral busy with fifteen centrals took
    /// longer than 10 s to answer, and its central lost delivery for the rest of the link).
    var resumingOnLink = false
    /// The peripheral process of the last welcome (a new one means: start over).
    var peripheralToken: SessionToken?
    /// The central's messages (and the frames written before them: hellos, acknowledgements, aborts).
    var outgoing: OutgoingDelivery<PeripheralRecipient>
    /// The peripheral's messages, once a welcome said who it is.
    var receiver: TransferReceiver?
    var inbound = InboundReports()
    /// Messages typed while the handshake decides the version (their commands wait in the
    /// session's `commands`).
    var waiting: [(number: Int, message: Message)] = []

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

    /// The hello for this link.
    func hello(address: BluetoothAddress?) -> SessionFrame {
        .hello(
            Hello(
                token: settings.token, address: address ?? BluetoothAddress(bytes: [0, 0, 0, 0, 0, 0])!,
                window: UInt32(settings.window), next: outgoing.sender.nextTransfer(for: .peripheral)))
    }
}
