import RelayApp
import RelayBlueZ
import RelayProtocol

/// The commands: each does what it asks for and finishes at once; a command the state refuses
/// finishes with its `PeripheralProblem`, with nothing done.
extension PeripheralSession {
    /// `start`: register the application and the advertisement (idempotent).
    mutating func start() -> [PeripheralAction] {
        registrations.start()
        var actions = reconcile()
        if isAdvertising, actions.isEmpty {
            actions.append(.report(.advertising(name: settings.name.text)))
        } else if !isPoweredOn {
            let why = adapter == .unknown ? "waiting for the adapter" : "the adapter is \(adapter.phrase)"
            actions.append(.note("will advertise as '\(settings.name)' once Bluetooth is powered on (\(why))"))
        }
        return actions
    }

    /// `stop`: stop advertising; the service stays for connected centrals.
    mutating func stop() -> [PeripheralAction] {
        registrations.stop()
        let actions = reconcile()
        if actions.isEmpty, registrations.advertisement == .absent { return [.note("not advertising")] }
        return actions
    }

    /// A command: refused (with nothing done) or done now, as on relay-central (`CommandStart`).
    mutating func handle(_ command: PeripheralCommand, token: CommandToken) -> [PeripheralAction] {
        let start: Result<CommandStart<PeripheralAction, Never>, PeripheralProblem>
        do throws(PeripheralProblem) {
            start = .success(try run(command))
        } catch {
            start = .failure(error)
        }
        return commands.begin(token, start)
    }

    /// What `command` does; a refusal is thrown. Every command of relay-peripheral is done at
    /// once: `notify`, `send` and `send-file` go to the room (`Audience.room`: done once queued).
    private mutating func run(
        _ command: PeripheralCommand
    ) throws(PeripheralProblem) -> CommandStart<PeripheralAction, Never> {
        switch command {
        case .start: return .done(start())
        case .stop: return .done(stop())
        case .notify(let value): return .sending(try notify(value: value, at: now), to: .room)
        case .send(let message): return .sending(try send(message, at: now), to: .room)
        case .status(nil): return .done([.report(.status(PeripheralStatus(session: self)))])
        case .status(let choice?):
            let listed = listedCentrals
            guard let address = choice.resolve(in: listed) else { throw .noSuchCentral(choice, listed: listed.count) }
            return .done([.report(.status(PeripheralStatus(session: self, only: address)))])
        }
    }

    /// `quit`: unregister everything (after the driver has let the outbox drain).
    mutating func quit() -> [PeripheralAction] {
        let wasAdvertising = isAdvertising
        let withdrawal = registrations.quit()
        var actions: [PeripheralAction] = []
        if withdrawal.advertisement {
            actions.append(.unregisterAdvertisement)
            if wasAdvertising { actions.append(.report(.stopped(.quit))) }
        }
        if withdrawal.application { actions.append(.unregisterApplication) }
        return actions
    }

    /// `notify [N]`: queue the counter (or `value`) for every subscriber, then count up.
    mutating func notify(value: UInt32?, at now: Double) throws(PeripheralProblem) -> [PeripheralAction] {
        self.now = max(self.now, now)
        try requireSubscribers()
        return queueCounter(sending.counterToNotify(value))
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
            sending.queueForSessions(counter, then: legacy > 0 ? nil : .notified(value: counter.value, centrals: total))
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
        let number = sending.numberNextMessage()
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
}
