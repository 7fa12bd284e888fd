import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Version 2 on the peripheral: hellos and welcomes, each central's messages through its
/// `TransferReceiver`, the peripheral's messages to every session through the `TransferSender`.
extension PeripheralSession {
    // MARK: Values written to the session characteristic

    /// A value a central wrote to the session characteristic.
    /// `lane`: the L2CAP channel it came on (nil: the session characteristic).
    mutating func sessionWritten(
        _ bytes: [UInt8], from address: BluetoothAddress?, mtu: MTU?, lane: LaneID? = nil
    ) -> [PeripheralAction] {
        var actions = noteWriter(address, mtu: mtu)
        let value: SessionValue
        do throws(SessionFrameError) {
            value = try SessionValue(parsing: bytes)
            if lane != nil, case .counter = value { throw .counterOnLane }
        } catch {
            if let event = delivery.strangers.protocolError(error, from: PeerName(.central, address), at: now) {
                actions.append(.report(.transfer(event)))
            }
            return actions
        }
        switch value {
        case .counter(let counter):
            if let number = address.flatMap(sessionNumber(at:)) { delivery.countCounter(of: number) }
            return actions + counterWritten(counter, by: address)
        case .frame(.hello(let hello)):
            return actions + greet(hello, from: address, lane: lane)
        case .compact(let frame):
            // It names no session: the writer's, which only bluetoothd can say.
            guard let number = address.flatMap(sessionNumber(at:)), let session = delivery.sessions[number] else {
                return actions
            }
            guard session.compact else {
                let event = delivery.protocolError(
                    .compactNotAgreed, of: number, from: PeerName(.central, session.address), at: now)
                return actions + (event.map { [.report(.transfer($0))] } ?? [])
            }
            let received = delivery.receive(of: number, at: now) { $0.receive(frame, at: now) }
            return actions + performInbound(received, of: number) + startSending()
        case .frame(.data(let data)):
            guard let number = session(data.session, writtenBy: address) else { return actions }
            let received = delivery.receive(of: number, at: now) { $0.receive(data, at: now) }
            return actions + performInbound(received, of: number) + startSending()
        case .frame(.acknowledgement(let ack)):
            guard let number = session(ack.session, writtenBy: address) else { return actions }
            let outcomes = delivery.outgoing.sender.acknowledge(ack, from: number, at: now)
            return actions + performOutbound(outcomes) + startSending()
        case .frame(.abort(let abort)):
            guard let number = session(abort.session, writtenBy: address) else { return actions }
            let received = delivery.receive(of: number, at: now) { $0.abort(abort, at: now) }
            return actions + performInbound(received, of: number)
        case .frame(.welcome):
            return actions
        }
    }

    /// The session a frame names, if it is one and the writer (when bluetoothd said) is its central.
    private func session(_ number: SessionNumber, writtenBy address: BluetoothAddress?) -> SessionNumber? {
        guard let session = delivery.sessions[number] else { return nil }
        if let address, address != session.address { return nil }
        return number
    }

    /// The session of the central at `address`, if any.
    func sessionNumber(at address: BluetoothAddress) -> SessionNumber? {
        delivery.sessions.values.first { $0.address == address }?.number
    }

    /// A hello: a new session, a session coming back (resume), or a central that restarted.
    private mutating func greet(_ hello: Hello, from writer: BluetoothAddress?, lane: LaneID?) -> [PeripheralAction] {
        let address = writer ?? hello.address
        // A central cut off from protocol 2 is not heard again until it connects again; one that
        // says hello far more often than the 5 times an honest one does, within a minute, is cut off.
        guard centrals[address]?.cutOff != true else { return [] }
        if let count = centrals[address]?.saidHello(
            at: now, limit: PeripheralDelivery.maximumHellosPerWindow, window: PeripheralDelivery.helloWindow)
        {
            return cutOff(address, .helloFlood(count: count, seconds: Int(PeripheralDelivery.helloWindow)))
        }
        // A token is notified in clear in its welcome, which every subscriber hears: it says which
        // process a hello comes from, never which central may have a session. A hello with the
        // token of another central's session is refused (no takeover of its messages, its
        // acknowledgements or its part files).
        if let known = delivery.session(of: hello.token), !isSameCentral(known.address, address) {
            guard case .allow(let suppressed) = delivery.refusedHellos.admit(now: now) else { return [] }
            return [.report(.error(.anotherCentralsToken(owner: known.address, suppressed: suppressed), from: address))]
        }
        // A relay central hears the session characteristic only.
        centrals[address]?.joinedSession()
        let window = max(1, min(delivery.settings.window, Int(hello.window)))
        let version = min(hello.version, SessionFrame.highestVersion)
        let compact = version >= SessionFrame.highestVersion
        var actions: [PeripheralAction] = []
        let number: SessionNumber
        var welcomes = true
        if let known = delivery.session(of: hello.token) {
            // The same central process: resume both ways.
            number = known.number
            let (received, report, welcome) = delivery.resume(
                known, at: address, lane: lane, window: window, compact: compact, next: hello.next, now: now)
            welcomes = welcome
            if report {
                centrals[address]?.noteReportedInSession(true)
                actions += [
                    .report(
                        .subscribed(
                            address, mtu: centrals[address]?.mtu, protocolVersion: 2, lane: lane == nil ? .gatt : .l2cap
                        ))
                ]
            }
            actions += performInbound(received, of: number)
        } else {
            // A new process at an address welcomed less than a second ago waits for its next hello
            // (2 s later): a flood of hellos with ever-new tokens cannot restart sessions, print
            // lines and put welcomes on the air at the rate it writes.
            if delivery.welcomedLately(address, at: now) { return [] }
            // A central process that restarted leaves its old session behind: it is gone.
            for old in delivery.sessions.values where old.address == address {
                actions += endSession(old.number, because: "the central restarted")
            }
            if delivery.freeNumber == nil, let away = delivery.longestAway {
                actions += endSession(away, because: "its number was needed while it was away")
            }
            guard let free = delivery.freeNumber else {
                return actions + [.report(.error(.sessionsFull, from: address))]
            }
            number = free
            let received = delivery.start(
                number, token: hello.token, at: address, lane: lane, window: window, compact: compact,
                next: hello.next, now: now)
            centrals[address]?.noteReportedInSession(true)
            actions += [
                .report(
                    .subscribed(
                        address, mtu: centrals[address]?.mtu, protocolVersion: 2, lane: lane == nil ? .gatt : .l2cap))
            ]
            actions += performInbound(received, of: number)
        }
        guard welcomes else { return actions + startSending() }
        delivery.outgoing.control.putFirst(
            .welcome(
                Welcome(
                    version: version, session: number, central: hello.token, peripheral: delivery.settings.token,
                    window: UInt32(delivery.settings.window), next: delivery.outgoing.sender.nextTransfer(for: number),
                    mtu: centrals[address]?.mtu))
        )
        return actions + startSending()
    }

    /// Whether `first` and `second` are one central: the same address, or one the other's identity
    /// (bluetoothd resolved a private address once it paired).
    private func isSameCentral(_ first: BluetoothAddress, _ second: BluetoothAddress) -> Bool {
        first == second || identities[first] == second || identities[second] == first
            || (identities[first] != nil && identities[first] == identities[second])
    }

    /// The central of session `number` broke protocol 2: cut off (see `cutOff(_:_:)` by address).
    private mutating func cutOff(_ number: SessionNumber, _ breach: ProtocolBreach) -> [PeripheralAction] {
        guard let address = delivery.sessions[number]?.address else { return [] }
        return cutOff(address, breach)
    }

    /// The central at `address` broke protocol 2: reported once, its session ended (its messages
    /// fail, its partial message is dropped) and its link ended: no honest relay breaks protocol 2,
    /// and what a broken or hostile one writes still comes through bluetoothd, each value a
    /// `WriteValue` call to read and answer (199 a second cost relay-peripheral half a CPU second a
    /// second in the test bed). Nothing of its session frames is read until it connects again.
    private mutating func cutOff(_ address: BluetoothAddress, _ breach: ProtocolBreach) -> [PeripheralAction] {
        guard centrals[address]?.cutOff != true else { return [] }
        centrals[address]?.cutOffFromProtocol2()
        var actions: [PeripheralAction] = [.report(.error(.brokeProtocol(breach), from: address))]
        for session in delivery.sessions.values where session.address == address {
            actions += endSession(session.number, because: "it broke protocol 2")
        }
        // Its L2CAP channels close with it, and no new one is kept until it connects again: what
        // it writes there would only be read to be ignored.
        return actions + lanesLinkDown(at: address) + [.disconnect(address)]
    }

    /// Ends a session for good: its messages fail, its partial message is dropped.
    private mutating func endSession(_ number: SessionNumber, because why: String) -> [PeripheralAction] {
        guard var session = delivery.end(number) else { return [] }
        let received = session.receiver.close(why)
        return performInbound(received, of: number, session: session)
            + performOutbound(delivery.outgoing.sender.remove(number, why), ended: session)
    }

    // MARK: Links

    /// The central at `address` disconnected: its session waits for a resume.
    mutating func sessionsLinkDown(at address: BluetoothAddress) {
        delivery.linkDown(of: address, at: now)
    }

    /// Notifications on the session characteristic stopped (bluetoothd says so when the last
    /// relay central left): every session waits for its central's next hello. Each connected
    /// central in session is reported, linked or not: one whose L2CAP channel hung up a moment
    /// before (its process killed: the channel and the subscription end together) is waiting for
    /// its hello already, and unsubscribes only now.
    mutating func sessionNotifyStopped() -> [PeripheralAction] {
        let linked = delivery.linkedSessions
        let leaving = Set(
            delivery.sessions.values.filter { $0.linked || centrals[$0.address] != nil }.map(\.address)
        ).sorted()
        for session in linked { sessionsLinkDown(at: session.address) }
        delivery.outgoing.control.removeAll()
        for address in leaving { centrals[address]?.noteReportedInSession(false) }
        return leaving.map { .report(.unsubscribed($0)) }
    }

    // MARK: Sending

    /// Queues message `number` for every session (linked, or away within the resume time-out);
    /// false when there is none.
    mutating func enqueueForSessions(_ message: Message, number: Int) -> Bool {
        let recipients = delivery.outgoing.sender.recipients
        guard !recipients.isEmpty else { return false }
        delivery.outgoing.enqueue(message, number: number, for: recipients, at: now)
        return true
    }

    /// The MTU data frames are cut for: the smallest channel's on `route` (`laneRoute`), else
    /// the smallest of the linked sessions' links.
    func sessionMTU(route: [LaneID]?) -> MTU {
        if let route, let mtu = laneMTU(of: route) { return mtu }
        let mtus = delivery.linkedSessions.map { centrals[$0.address]?.mtu ?? subscriptions.sessionLinkMTU ?? .default }
        return mtus.min() ?? .default
    }

    /// The next value for the session characteristic: a welcome, acknowledgement or abort, a
    /// counter, then data. Frames are cut for the route taken now (`laneRoute`: the channels,
    /// else notified), and go on it.
    mutating func nextSessionValue(afterOutbox: Bool) -> OutgoingValue? {
        let route = laneRoute
        let valueRoute = route.map { PeripheralRoute.lanes($0) } ?? .notification(.session)
        let carrier = valueRoute.valueCarrier
        if let next = delivery.outgoing.control.popFirst() {
            // Notified to every session's central: it must fit the smallest MTU.
            let frame = next.fitting(sessionMTU(route: route).maxValueLength(carrier))
            return OutgoingValue(bytes: frame.encoded, counter: nil, completion: nil, route: valueRoute)
        }
        if let (counter, completion) = sending.takeSessionCounter() {
            // Counters stay on GATT (docs/protocol.md, "The L2CAP lane").
            return OutgoingValue(
                bytes: counter.encoded, counter: counter, completion: completion, route: .notification(.session))
        }
        guard afterOutbox, !delivery.linkedSessions.isEmpty else { return nil }
        // A session's frames travel losslessly only while every frame goes on the lanes (one
        // linked session without a lane puts them all on notifications): said to the sender
        // here, where the route is chosen, before it picks the next frame.
        for session in delivery.linkedSessions {
            delivery.outgoing.sender.setLossless(session.number, route != nil && session.lane != nil)
        }
        let mtu = sessionMTU(route: route)
        guard
            // Every subscriber hears a notification: a compact frame, which names neither session
            // nor transfer, goes only while one central is in session.
            let frame = delivery.outgoing.nextDataFrame(
                at: now, mtu: mtu, carrier: carrier, compactAllowed: delivery.linkedSessions.count == 1,
                session: { recipients in recipients.count == 1 ? recipients[0] : .everyone })
        else { return nil }
        // `sent` once handed over: a notification is on its way to every subscriber then.
        return OutgoingValue(
            bytes: frame.bytes, counter: nil, completion: nil,
            route: route.map { .lanes(lanes(of: frame.recipients, within: $0)) } ?? .notification(.session),
            final: frame.final)
    }

    /// The channels of `recipients` on `route`: a frame goes on the lanes of the sessions it is for
    /// only (a repair for one central of fifteen takes one channel's share of the radio, not
    /// fifteen), where a notification reaches every subscriber.
    private func lanes(of recipients: [SessionNumber], within route: [LaneID]) -> [LaneID] {
        let theirs = Set(recipients.compactMap { delivery.sessions[$0]?.lane })
        return route.filter { theirs.contains($0) }
    }

    /// A central's message is saved (or is not): its final acknowledgement says which.
    mutating func saved(_ receipt: SaveReceipt) -> [PeripheralAction] {
        guard
            let number = delivery.sessions.first(where: { PeerName(.central, $0.value.address) == receipt.from })?.key
        else { return [] }
        let received = delivery.receive(of: number, at: now) { $0.saved(receipt.transfer, receipt.saved, at: now) }
        return performInbound(received, of: number) + startSending()
    }

    // MARK: Time

    /// What is due at `now` in the sender and the receivers.
    mutating func deliveryTick() -> [PeripheralAction] {
        var actions = performOutbound(delivery.outgoing.sender.tick(at: now))
        for number in delivery.sessions.keys.sorted() {
            actions += performInbound(delivery.receive(of: number, at: now) { $0.tick(at: now) }, of: number)
        }
        // A session away for longer than the resume time-out is forgotten.
        delivery.forgetSettled()
        return actions + startSending()
    }

    // MARK: Outcomes

    /// The sender's `actions`: events, and centrals that broke protocol 2 cut off. `ended`: a
    /// session just removed, whose failures still name its central.
    private mutating func performOutbound(
        _ actions: [TransferSender<SessionNumber>.Action], ended: PeripheralDelivery.Session? = nil
    ) -> [PeripheralAction] {
        let sessions = delivery.sessions
        let outcomes = delivery.outgoing.absorb(
            actions,
            name: { number in
                PeerName(.central, sessions[number]?.address ?? (ended?.number == number ? ended?.address : nil))
            }, session: { $0 })
        var result: [PeripheralAction] = []
        for outcome in outcomes {
            switch outcome {
            case .report(let event): result.append(.report(.transfer(event)))
            case .settled: break
            case .breach(let number, let breach): result += cutOff(number, breach)
            }
        }
        return result
    }

    /// The receiver's `actions` of session `number` (or of `ended`, a session that just ended:
    /// its acknowledgements are not sent): events, messages and files.
    private mutating func performInbound(
        _ actions: [TransferReceiver.Action], of number: SessionNumber, session ended: PeripheralDelivery.Session? = nil
    ) -> [PeripheralAction] {
        guard var session = ended ?? delivery.sessions[number] else { return [] }
        let from = PeerName(.central, session.address)
        guard ended == nil else {
            var unsent = ControlFrames()
            return session.inbound.actions(
                for: actions, from: from, arrivals: &arrivals, acknowledgingOn: &unsent, at: now)
        }
        let result: [PeripheralAction] = session.inbound.actions(
            for: actions, from: from, arrivals: &arrivals, acknowledgingOn: &delivery.outgoing.control, at: now)
        delivery.keep(session.inbound, of: number)
        return result
    }
}
