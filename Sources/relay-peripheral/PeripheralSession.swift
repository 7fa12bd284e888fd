import RelayProtocol
import Shared

/// The peripheral's state machine: what the user asked for (advertise or not), what bluetoothd
/// reported (adapter state, registrations, centrals, subscriptions, writes), and the queue of
/// notifications. It performs no I/O: every input returns the actions the driver must perform.
struct PeripheralSession {
    /// Where a registration stands.
    enum Registration: Equatable, Sendable {
        case absent
        case pending(RegistrationTicket)
        case active
    }

    struct Configuration: Equatable, Sendable {
        var name = AdvertisedName.default
        var maxMessage = PeripheralOptions.defaultMaxMessage
        var echo = false
        var saveDirectory: String?
    }

    let configuration: Configuration
    private(set) var adapter: AdapterStatus?
    private(set) var adapterName: String?
    /// The user asked to advertise (`start`) and did not `stop`.
    private(set) var wantsAdvertising = false
    /// The GATT application is wanted (from the first `start` until `quit`).
    private(set) var wantsApplication = false
    /// bluetoothd released the advertisement while powered: wait for `start` or a power cycle.
    private(set) var releasedByBlueZ = false
    private(set) var application = Registration.absent
    private(set) var advertisement = Registration.absent
    /// Connected centrals (mutated only by the session and its extensions).
    var centrals: [BluetoothAddress: CentralState] = [:]
    /// Writes that came without a device option (never from bluetoothd itself).
    var anonymous: CentralState

    /// bluetoothd has notifications enabled on the notify characteristic.
    private(set) var notifying = false
    /// MTU from the latest acquired notification socket (applies to all subscribers).
    private(set) var notifyLinkMTU: MTU?
    /// The next counter `notify` sends.
    private(set) var counter = Counter(0)
    /// The last counter handed to bluetoothd (what a read of the notify characteristic returns).
    private(set) var lastNotified: Counter?
    /// The last value any central wrote (what a read of the write characteristic returns).
    var lastWritten: [UInt8]?
    var messagesReceived = 0
    private var chunker = Chunker()
    var outbox = NotificationOutbox()
    private var nextTicket = 0

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.anonymous = CentralState(address: BluetoothAddress(bytes: [0, 0, 0, 0, 0, 0])!, maxMessage: configuration.maxMessage)
    }

    var isPoweredOn: Bool { adapter == .poweredOn }
    /// Advertising as the user sees it: the advertisement and the service it names are both
    /// registered (`advertising` was reported). The two registrations are requested together
    /// and may complete in either order.
    var isAdvertising: Bool { advertisement == .active && application == .active }
    /// Values waiting to be notified.
    var hasPendingValues: Bool { !outbox.isEmpty }
    var pendingCount: Int { outbox.count }

    // MARK: Commands

    /// `start`: register the application and the advertisement (idempotent).
    mutating func start() -> [PeripheralAction] {
        wantsApplication = true
        wantsAdvertising = true
        releasedByBlueZ = false
        var actions = reconcile()
        if isAdvertising, actions.isEmpty {
            actions.append(.report(.advertising(name: configuration.name.text)))
        } else if !isPoweredOn {
            let why = adapter.map { "the adapter is \($0.phrase)" } ?? "waiting for the adapter"
            actions.append(.note("will advertise as '\(configuration.name)' once Bluetooth is powered on (\(why))"))
        }
        return actions
    }

    /// `stop`: stop advertising; the service stays for connected centrals.
    mutating func stop() -> [PeripheralAction] {
        wantsAdvertising = false
        releasedByBlueZ = false
        let actions = reconcile()
        if actions.isEmpty, advertisement == .absent { return [.note("not advertising")] }
        return actions
    }

    /// `quit`: unregister everything (after the driver has let the outbox drain).
    mutating func quit() -> [PeripheralAction] {
        wantsAdvertising = false
        wantsApplication = false
        var actions: [PeripheralAction] = []
        if advertisement == .active {
            actions.append(.unregisterAdvertisement)
            if isAdvertising { actions.append(.report(.stopped(.quit))) }
        }
        if application == .active { actions.append(.unregisterApplication) }
        advertisement = .absent
        application = .absent
        return actions
    }

    /// `notify [N]`: queue the counter (or `value`) for every subscriber, then count up.
    mutating func notify(value: UInt32?) throws(CommandError) -> [PeripheralAction] {
        try requireSubscribers()
        let sent = value.map(Counter.init) ?? counter
        outbox.append(counter: sent, centrals: subscriberCount)
        counter = sent.next
        return [.startSending]
    }

    /// `send`/`send-file`: queue a framed message, chunked for the smallest subscribed MTU.
    mutating func send(_ message: Message) throws(CommandError) -> [PeripheralAction] {
        try requireSubscribers()
        guard message.bytes.count <= Int(UInt32.max) else {
            throw CommandError("a message must be shorter than 4 GiB")
        }
        let mtu = sendingMTU
        chunker.mtu = mtu
        let frames = chunker.frames(for: message)
        let report = PeripheralEvent.sent(
            kind: message.kind, length: message.bytes.count, sha256: SHA256.hash(message.bytes).hex,
            frames: frames.count, mtu: mtu)
        outbox.append(frames: frames, report: report)
        return [.startSending]
    }

    private func requireSubscribers() throws(CommandError) {
        guard let adapter, adapter == .poweredOn else {
            throw CommandError("Bluetooth is not powered on (\(adapter?.phrase ?? "no adapter yet")); nothing was sent")
        }
        guard application == .active else {
            throw CommandError("the GATT service is not registered: type start first")
        }
        guard hasSubscribers else {
            throw CommandError("no central is subscribed to notifications (wait for 'subscribed')")
        }
    }

    // MARK: Notification pacing

    /// Whether notifications would reach someone.
    var hasSubscribers: Bool { notifying || centrals.values.contains { $0.subscribed } }

    /// How many centrals a notification may reach. bluetoothd names only the first subscriber
    /// (`AcquireNotify`/`StartNotify` come once, however many centrals enable notifications) and
    /// sends every notification to each central that enabled them, so while notifications are on
    /// every central connected then counts (see `notifyStarted`).
    var subscriberCount: Int {
        let flagged = centrals.values.filter(\.subscribed).count
        return notifying ? max(1, flagged) : flagged
    }

    /// The MTU messages are chunked for: the smallest among the centrals that may receive them.
    /// bluetoothd truncates a notification to each link's MTU - 3 without telling anyone, so
    /// a central that subscribed silently with a smaller MTU would get corrupted frames if the
    /// chunks followed the first subscriber's MTU only. A central whose MTU is unknown counts
    /// with the notification socket's MTU; 23 when nothing is known.
    var sendingMTU: MTU {
        let subscribed = centrals.values.filter(\.subscribed)
        let audience = subscribed.isEmpty ? Array(centrals.values) : subscribed
        var mtus = audience.map { $0.mtu ?? notifyLinkMTU ?? .default }
        if let notifyLinkMTU { mtus.append(notifyLinkMTU) }
        return mtus.min() ?? .default
    }

    /// The next value to hand to bluetoothd, if any. The driver reports its `completion`
    /// once the value has been accepted.
    mutating func takeNextValue() -> OutgoingValue? {
        guard let value = outbox.next() else { return nil }
        if let sent = value.counter { lastNotified = sent }
        return value
    }

    /// Drops everything queued (the link went away), reporting what was lost.
    mutating func abandonOutbox(because reason: String) -> [PeripheralAction] {
        let lost = outbox.removeAll()
        var parts: [String] = []
        if lost.messages > 0 { parts.append("\(lost.messages) message\(lost.messages == 1 ? "" : "s")") }
        if lost.counters > 0 { parts.append("\(lost.counters) counter\(lost.counters == 1 ? "" : "s")") }
        guard !parts.isEmpty else { return [] }
        return [.report(.error("\(parts.joined(separator: " and ")) not sent: \(reason)", from: nil))]
    }

    // MARK: Reads

    /// The value a central reads, from `offset`.
    func read(_ characteristic: RelayCharacteristic, offset: Int) -> Result<[UInt8], ReadFailure> {
        let value: [UInt8]
        switch characteristic {
        case .write: value = lastWritten ?? []
        case .notify: value = lastNotified?.encoded ?? []
        }
        guard offset >= 0, offset <= value.count else {
            return .failure(.invalidOffset(offset: offset, length: value.count))
        }
        return .success(Array(value[offset...]))
    }

    // MARK: Inputs

    mutating func handle(_ input: PeripheralInput) -> [PeripheralAction] {
        switch input {
        case .adapter(let status, let name):
            return adapterChanged(to: status, name: name)
        case .applicationRegistered(let ticket):
            guard application == .pending(ticket) else { return [] }
            application = .active
            var actions: [PeripheralAction] = [.report(.registered)]
            // The advertisement's reply came first: advertising starts now.
            if isAdvertising { actions.append(.report(.advertising(name: configuration.name.text))) }
            return actions + reconcile()
        case .applicationFailed(let ticket, let message):
            guard application == .pending(ticket) else { return [] }
            application = .absent
            wantsApplication = false
            wantsAdvertising = false
            var actions: [PeripheralAction] = [.report(.error(message, from: nil))]
            // Never advertise a service that is not there: take back an advertisement already
            // registered (one still pending is taken back when its reply comes).
            if advertisement == .active {
                advertisement = .absent
                actions.insert(.unregisterAdvertisement, at: 0)
            }
            return actions
        case .advertisementRegistered(let ticket):
            guard advertisement == .pending(ticket) else { return [] }
            advertisement = .active
            if wantsAdvertising && isPoweredOn {
                // Reported once the service is registered too (`applicationRegistered`).
                return isAdvertising ? [.report(.advertising(name: configuration.name.text))] : []
            }
            // Stopped, powered off or the service failed while the request was on its way: take it back.
            advertisement = .absent
            return [.unregisterAdvertisement]
        case .advertisementFailed(let ticket, let message):
            guard advertisement == .pending(ticket) else { return [] }
            advertisement = .absent
            wantsAdvertising = false
            return [.report(.error(message, from: nil))]
        case .advertisementReleased:
            guard advertisement != .absent else { return [] }
            let wasAdvertising = isAdvertising
            advertisement = .absent
            guard wantsAdvertising else { return [] }
            if isPoweredOn { releasedByBlueZ = true }
            return wasAdvertising ? [.report(.stopped(isPoweredOn ? .released : .poweredOff))] : []
        case .connected(let address):
            return ensureCentral(address)
        case .disconnected(let address):
            return disconnect(address, reason: "disconnected")
        case .mtu(let address, let mtu):
            return ensureCentral(address) + learnMTU(mtu, of: address)
        case .written(let bytes, let from, let mtu, let time):
            return received(bytes, from: from, mtu: mtu, time: time)
        case .notifyStarted(let from, let mtu):
            return notifyStarted(from: from, mtu: mtu)
        case .notifyStopped(let from):
            return notifyStopped(from: from)
        case .tick(let now):
            return dropStalledMessages(at: now)
        }
    }

    private mutating func adapterChanged(to status: AdapterStatus, name: String?) -> [PeripheralAction] {
        guard status != adapter || name != adapterName else { return [] }
        let wasOn = isPoweredOn
        let wasAdvertising = isAdvertising
        adapter = status
        adapterName = name
        var actions: [PeripheralAction] = [.report(.state(status, adapter: name))]
        if case .poweredOn = status {
            releasedByBlueZ = false
            return actions + reconcile()
        }
        // Paused: advertising stops, links are gone, queued notifications cannot be delivered.
        let lostBlueZ: Bool
        switch status {
        case .poweredOn, .poweredOff: lostBlueZ = false
        case .notAvailable, .notPermitted: lostBlueZ = true
        }
        if advertisement == .active {
            if !lostBlueZ { actions.append(.unregisterAdvertisement) }
            if wasOn, wasAdvertising { actions.append(.report(.stopped(lostBlueZ ? .unavailable : .poweredOff))) }
            advertisement = .absent
        } else if case .pending = advertisement, lostBlueZ {
            advertisement = .absent
        }
        if lostBlueZ {
            // bluetoothd forgets every registration when it (or the adapter) goes away.
            application = .absent
        }
        for address in centrals.keys.sorted() {
            actions += disconnect(address, reason: "Bluetooth \(status.phrase)")
        }
        notifying = false
        notifyLinkMTU = nil
        actions += abandonOutbox(because: "Bluetooth is \(status.phrase)")
        return actions
    }

    /// Issues the registrations the wishes and the state call for. The application and the
    /// advertisement are requested together (they are independent in bluetoothd: one round trip
    /// instead of two at start-up); `advertising` is reported once both are registered.
    private mutating func reconcile() -> [PeripheralAction] {
        guard isPoweredOn else { return [] }
        var actions: [PeripheralAction] = []
        if wantsApplication, application == .absent {
            let ticket = makeTicket()
            application = .pending(ticket)
            actions.append(.registerApplication(ticket))
        }
        if wantsAdvertising, !releasedByBlueZ, application != .absent, advertisement == .absent {
            let ticket = makeTicket()
            advertisement = .pending(ticket)
            actions.append(.registerAdvertisement(ticket, name: configuration.name))
        }
        if !wantsAdvertising, advertisement == .active {
            let wasAdvertising = isAdvertising
            advertisement = .absent
            actions.append(.unregisterAdvertisement)
            if wasAdvertising { actions.append(.report(.stopped(.command))) }
        }
        return actions
    }

    private mutating func makeTicket() -> RegistrationTicket {
        nextTicket += 1
        return RegistrationTicket(value: nextTicket)
    }

    mutating func ensureCentral(_ address: BluetoothAddress) -> [PeripheralAction] {
        guard centrals[address] == nil else { return [] }
        var central = CentralState(address: address, maxMessage: configuration.maxMessage)
        // While notifications are on, bluetoothd does not tell when another central enables
        // them: one that connects now may receive every notification.
        central.subscribed = notifying
        centrals[address] = central
        return [.report(.connected(address))]
    }

    mutating func learnMTU(_ mtu: MTU, of address: BluetoothAddress) -> [PeripheralAction] {
        guard centrals[address]?.mtu != mtu else { return [] }
        centrals[address]?.mtu = mtu
        return [.report(.mtu(address, mtu))]
    }

    private mutating func disconnect(_ address: BluetoothAddress, reason: String) -> [PeripheralAction] {
        guard var central = centrals.removeValue(forKey: address) else { return [] }
        var actions: [PeripheralAction] = []
        if let partial = central.reassembler.reset() {
            actions.append(.report(.dropped(from: address, received: partial.received, total: partial.total, reason: reason)))
        }
        actions.append(.report(.disconnected(address)))
        if central.subscribed, !hasSubscribers {
            actions += abandonOutbox(because: "the last subscribed central left")
        }
        return actions
    }

    /// Notifications were enabled. bluetoothd calls `AcquireNotify` (with the device) or
    /// `StartNotify` only for the first central that enables them and closes the socket (or
    /// calls `StopNotify`) only when the last one disables them; the others come and go
    /// silently. So every connected central is flagged as a possible receiver, and the event
    /// names the central bluetoothd named.
    private mutating func notifyStarted(from address: BluetoothAddress?, mtu: MTU?) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        let wasNotifying = notifying
        let alreadyKnown = address.flatMap { centrals[$0]?.subscribed } ?? false
        notifying = true
        if let mtu { notifyLinkMTU = mtu }
        if let address {
            actions += ensureCentral(address)
            if let mtu { actions += learnMTU(mtu, of: address) }
        }
        for key in centrals.keys { centrals[key]?.subscribed = true }
        if wasNotifying, address == nil || alreadyKnown { return actions }
        actions.append(.report(.subscribed(address, mtu: mtu)))
        return actions
    }

    /// Notifications were disabled: by one known central (`from`), or, when bluetoothd closes
    /// the socket or calls `StopNotify` (`from` nil), by every central, each reported by address.
    private mutating func notifyStopped(from address: BluetoothAddress?) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        if let address {
            guard centrals[address]?.subscribed == true else { return [] }
            centrals[address]?.subscribed = false
            notifying = centrals.values.contains { $0.subscribed }
            actions.append(.report(.unsubscribed(address)))
        } else {
            let leaving = centrals.values.filter(\.subscribed).map(\.address).sorted()
            guard notifying || !leaving.isEmpty else { return [] }
            notifying = false
            notifyLinkMTU = nil
            for key in centrals.keys { centrals[key]?.subscribed = false }
            actions += leaving.isEmpty ? [.report(.unsubscribed(nil))] : leaving.map { .report(.unsubscribed($0)) }
        }
        if !hasSubscribers {
            actions += abandonOutbox(because: "no central is subscribed any more")
        }
        return actions
    }
}
