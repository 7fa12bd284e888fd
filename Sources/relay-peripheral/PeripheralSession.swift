import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// The peripheral's state machine: what the user asked for (advertise or not), what bluetoothd
/// reported (adapter state, registrations, centrals, subscriptions, writes), and the paced queue
/// of notifications. It performs no I/O: every input returns the actions the driver performs.
struct PeripheralSession {
    /// Where a registration stands.
    enum Registration: Equatable, Sendable {
        case absent
        case pending(RegistrationTicket)
        case active
    }

    struct Configuration: Equatable, Sendable {
        var name = AdvertisedName.default
        var maxMessage = CommonOptions.defaultMaxMessage
        var echo = false
        var saveDirectory: String?
        /// Protocol version 2: token, window, time-outs.
        var delivery = DeliverySettings()
        /// `--trace` (nil: off).
        var trace: TraceReports?
        /// The Nordic UART Service for phone apps, and the line ending of text sent there (nil: `--no-nus`).
        var uart: UARTLineEnding? = .lf
        /// `--allow`: the only centrals whose values are taken (nil: every central's).
        var allowedCentrals: Set<BluetoothAddress>?
        /// `--secure`: the values need a bonded, authenticated link; the agent shows passkeys.
        var secure = false
    }

    let configuration: Configuration
    /// The loop's time when the current input is handled (monotonic seconds).
    var now = 0.0
    private(set) var adapter: AdapterState = .unknown
    private(set) var adapterInfo: AdapterInfo?
    /// The GATT application and the advertisement (see `PeripheralSession+Lifecycle`).
    var registrations = PeripheralRegistrations()
    /// Connected centrals.
    var centrals: [BluetoothAddress: ConnectedCentral] = [:]
    /// Writes that came without a device option (never from bluetoothd itself).
    var anonymous: ConnectedCentral
    /// The identity addresses of connected centrals that bonded under another address.
    var identities: [BluetoothAddress: BluetoothAddress] = [:]
    /// Subscriptions as bluetoothd reports them for all centrals.
    var subscriptions = PeripheralSubscriptions()
    /// Counters and version-1 messages notified, one value at a time (see `PeripheralSession+Sending`).
    var sending = PeripheralSending()
    /// Complete messages received from every central (numbered for `--save-dir`).
    var arrivals: MessageArrivals
    var messagesReceived: Int { arrivals.count }
    /// Bus calls and values refused, and the pace of their reports (see `PeripheralSession+AllowList`).
    var refusals = PeripheralRefusals()
    /// Protocol version 2 with relay centrals (see `PeripheralSession+Delivery`).
    var delivery: PeripheralDelivery
    /// Phone UART apps on the Nordic UART Service (see `PeripheralSession+UART`).
    var uart = UARTPeers()
    /// `--secure`: passkeys shown, bonds made (see `PeripheralSession+Pairing`).
    var pairing = PeripheralPairing()
    /// `--trace`: every value written or notified (nil: off).
    var trace: TraceReports?

    init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.trace = configuration.trace
        self.anonymous = ConnectedCentral(address: nil, maxMessage: configuration.maxMessage)
        self.arrivals = MessageArrivals(saveDirectory: configuration.saveDirectory)
        self.delivery = PeripheralDelivery(settings: configuration.delivery)
    }

    var isPoweredOn: Bool { adapter == .poweredOn }
    /// Advertising as the user sees it: the advertisement and the service it names are both
    /// registered (`advertising` was reported). The two registrations are requested together
    /// and may complete in either order.
    var isAdvertising: Bool { registrations.advertisement == .active && registrations.application == .active }

    // MARK: Commands

    /// `start`: register the application and the advertisement (idempotent).
    mutating func start() -> [PeripheralAction] {
        registrations.wantsApplication = true
        registrations.wantsAdvertising = true
        registrations.releasedByBlueZ = false
        var actions = reconcile()
        if isAdvertising, actions.isEmpty {
            actions.append(.report(.advertising(name: configuration.name.text)))
        } else if !isPoweredOn {
            let why = adapter == .unknown ? "waiting for the adapter" : "the adapter is \(adapter.phrase)"
            actions.append(.note("will advertise as '\(configuration.name)' once Bluetooth is powered on (\(why))"))
        }
        return actions
    }

    /// `stop`: stop advertising; the service stays for connected centrals.
    mutating func stop() -> [PeripheralAction] {
        registrations.wantsAdvertising = false
        registrations.releasedByBlueZ = false
        let actions = reconcile()
        if actions.isEmpty, registrations.advertisement == .absent { return [.note("not advertising")] }
        return actions
    }

    /// A command: its actions, then its `finish` (a refusal fails it, with nothing done).
    private mutating func handle(_ command: PeripheralCommand, token: CommandToken) -> [PeripheralAction] {
        let actions: [PeripheralAction]
        do throws(PeripheralProblem) {
            switch command {
            case .start: actions = start()
            case .stop: actions = stop()
            case .notify(let value): actions = try notify(value: value, at: now)
            case .send(let message): actions = try send(message, at: now)
            case .status: actions = [.report(.status(PeripheralStatus(session: self)))]
            }
        } catch {
            return [.finish(token, error)]
        }
        return actions + [.finish(token, nil)]
    }

    /// `quit`: unregister everything (after the driver has let the outbox drain).
    mutating func quit() -> [PeripheralAction] {
        registrations.wantsAdvertising = false
        registrations.wantsApplication = false
        var actions: [PeripheralAction] = []
        if registrations.advertisement == .active {
            actions.append(.unregisterAdvertisement)
            if isAdvertising { actions.append(.report(.stopped(.quit))) }
        }
        if registrations.application == .active { actions.append(.unregisterApplication) }
        registrations.advertisement = .absent
        registrations.application = .absent
        return actions
    }

    /// `notify [N]`: queue the counter (or `value`) for every subscriber, then count up.
    mutating func notify(value: UInt32?, at now: Double) throws(PeripheralProblem) -> [PeripheralAction] {
        self.now = max(self.now, now)
        try requireSubscribers()
        let sent = value.map(Counter.init) ?? sending.nextCounter
        sending.nextCounter = sent.next
        return queueCounter(sent)
    }

    /// Whether a central (the original apps, a version-1 relay) may hear the notify characteristic.
    var hasLegacySubscribers: Bool { subscriptions.notifying || centrals.values.contains { $0.subscribed } }

    /// Queues `counter` for the notify characteristic's subscribers and the sessions (on the
    /// session characteristic); `notified` follows the last one handed over.
    mutating func queueCounter(_ counter: Counter) -> [PeripheralAction] {
        let sessions = delivery.linkedSessions.count
        let legacy = hasLegacySubscribers ? subscriberCount : 0
        let total = legacy + sessions
        if sessions > 0 {
            sending.sessionCounters.append(
                (counter, legacy > 0 ? nil : .notified(value: counter.value, centrals: total)))
        }
        if legacy > 0 { sending.outbox.append(counter: counter, tag: total) }
        return startSending()
    }

    /// `send`/`send-file`: queue a message for the sessions (version 2, delivery confirmed) and,
    /// framed for the smallest subscribed MTU, for the notify characteristic's subscribers (version 1).
    ///
    /// `now` is the loop time of the command: the frames it sends are timed from it.
    mutating func send(_ message: Message, at now: Double) throws(PeripheralProblem) -> [PeripheralAction] {
        self.now = max(self.now, now)
        try requireSubscribers(text: message.kind == .text && message.stored == nil)
        guard message.length <= Int(UInt32.max) - 300 else {
            throw .messageTooLarge
        }
        guard delivery.outgoing.streams.count < DeliverySettings.maximumMessagesOnTheirWay else {
            throw .queueFull
        }
        let number = sending.nextMessageNumber
        sending.nextMessageNumber += 1
        _ = enqueueForSessions(message, number: number)
        _ = queueForUART(message)
        if hasLegacySubscribers {
            sending.chunker.mtu = sendingMTU
            sending.outbox.append(message, number: number, chunker: &sending.chunker, tag: subscriberCount)
        }
        return startSending()
    }

    /// `text`: a UART app subscribed to TX is enough (it gets text, not counters or files).
    private func requireSubscribers(text: Bool = false) throws(PeripheralProblem) {
        guard isPoweredOn else { throw .adapter(adapter) }
        guard registrations.application == .active else { throw .notRegistered }
        guard text ? hasAudience : hasSubscribers else { throw .noSubscriber }
    }

    // MARK: Inputs

    mutating func handle(_ input: PeripheralInput) -> [PeripheralAction] {
        switch input {
        case .command(let command, let token):
            return handle(command, token: token)
        case .quitting:
            return quit()
        case .adapter(let state, let info):
            return adapterChanged(to: state, info: info)
        case .applicationRegistered(let ticket):
            return applicationRegistered(ticket)
        case .applicationFailed(let ticket, let failure):
            return applicationFailed(ticket, failure)
        case .advertisementRegistered(let ticket):
            return advertisementRegistered(ticket)
        case .advertisementFailed(let ticket, let failure):
            return advertisementFailed(ticket, failure)
        case .advertisementReleased:
            return advertisementReleased()
        case .connected(let address):
            return ensureCentral(address)
        case .disconnected(let address):
            return disconnect(address, reason: "disconnected") + pairingLeft(address)
        case .identityResolved(let address, let identity):
            // The identity address is the one the central itself distributed when it paired: it
            // says who the central is only when the pairing was authenticated, which `--secure`
            // demands (its characteristics need an authenticated link, its agent shows the
            // passkey). An open-mode pairing is just-works: any central can claim any identity
            // that way, so it is neither allowed by it nor taken for the central it names.
            if configuration.secure { identities[address] = identity }
            return []
        case .pairing(let change):
            return pairingChanged(change)
        case .mtu(let address, let mtu):
            return ensureCentral(address) + learnMTU(mtu, of: address)
        case .written(let bytes, let from, let mtu, let time):
            guard admitsWriter(from) else { return dropUnlisted(from, at: time) }
            return received(bytes, from: from, mtu: mtu, time: time)
        case .sessionWritten(let bytes, let from, let mtu, let time):
            guard admitsWriter(from) else { return dropUnlisted(from, at: time) }
            return sessionWritten(bytes, from: from, mtu: mtu, time: time)
        case .uartWritten(let bytes, let from, let mtu, let time):
            guard admitsWriter(from) else { return dropUnlisted(from, at: time) }
            return uartWritten(bytes, from: from, mtu: mtu, time: time)
        case .uartNotifyStarted(let from, let mtu):
            return uartNotifyStarted(from: from, mtu: mtu)
        case .uartNotifyStopped:
            return uartNotifyStopped()
        case .sessionNotifyStarted(let mtu):
            subscriptions.sessionNotifying = true
            if let mtu { subscriptions.sessionLinkMTU = mtu }
            return []
        case .sessionNotifyStopped:
            subscriptions.sessionNotifying = false
            subscriptions.sessionLinkMTU = nil
            return sessionNotifyStopped()
        case .notifyStarted(let from, let mtu):
            return notifyStarted(from: from, mtu: mtu)
        case .notifyStopped(let from):
            return notifyStopped(from: from)
        case .notifyOutcome(let outcome):
            return notifyFinished(outcome)
        case .notifyWritable:
            return writable()
        case .sendTimerFired:
            return pauseOver()
        case .refusedCall(let call, let time):
            guard case .allow(let suppressed) = refusals.refusedCalls.admit(now: time) else { return [] }
            return [.report(.error(.refusedCall(call, suppressed: suppressed), from: nil))]
        case .tick(let now):
            self.now = max(self.now, now)
            return dropStalledMessages(at: now) + deliveryTick() + uartIdleLines(at: now)
        case .saved(let receipt):
            return saved(receipt)
        }
    }

    /// Handles one input at loop time `now`.
    mutating func handle(_ input: PeripheralInput, at now: Double) -> [PeripheralAction] {
        self.now = max(self.now, now)
        guard trace != nil else { return handle(input) }
        let handedOver = sending.inFlight
        let actions = handle(input)
        return traceReports(for: input, handedOver: handedOver) + actions
    }

    mutating func makeTicket() -> RegistrationTicket {
        registrations.makeTicket()
    }

    mutating func setAdapter(_ state: AdapterState, info: AdapterInfo?) {
        adapter = state
        adapterInfo = info
    }
}
