import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Version 2 on the central's link: the handshake, the session characteristic's values, the
/// central's messages through `TransferSender` and the peripheral's through `TransferReceiver`.
extension CentralSession {
    /// The peripheral as events name it.
    var peripheralName: PeerName { PeerName(.peripheral, peer?.address ?? automatic.lastRelayAddress) }

    // MARK: Handshake

    /// The link is set up on the session characteristic: greet the peripheral.
    mutating func startGreeting() -> [CentralAction] {
        delivery.phase = .greeting(attempt: 1, since: now)
        delivery.compact = false
        delivery.outgoing.control.removeAll()
        delivery.outgoing.control.append(delivery.hello(address: adapterInfo?.address))
        return pump()
    }

    /// A welcome came on the session characteristic (for this central, or another).
    mutating func welcomed(_ welcome: Welcome) -> [CentralAction] {
        guard case .greeting = delivery.phase, welcome.central == delivery.settings.token,
            case .ready(let peer, let relay) = link
        else { return [] }
        delivery.phase = .established(welcome.session)
        delivery.resumingOnLink = false
        let window = max(1, min(delivery.settings.window, Int(welcome.window)))
        let compact = welcome.version >= SessionFrame.highestVersion
        delivery.compact = compact
        // On the lane nothing is lost while it is up: a time-out there means late, not lost.
        let lossless: Bool
        if case .open = delivery.lane { lossless = true } else { lossless = false }
        var outbound: [TransferSender<PeripheralRecipient>.Action] = []
        var received: [TransferReceiver.Action] = []
        if let known = delivery.peripheralToken, known == welcome.peripheral, var receiver = delivery.receiver {
            // The same peripheral process: resume both ways.
            delivery.outgoing.sender.linkUp(.peripheral, window: window, compact: compact, lossless: lossless, at: now)
            receiver.session = welcome.session
            received = receiver.linkUp(next: welcome.next, at: now)
            delivery.receiver = receiver
        } else {
            if delivery.peripheralToken != nil {
                // Another peripheral process (or another peripheral): what the old one held is gone.
                outbound = delivery.outgoing.sender.restarted(
                    .peripheral, window: window, compact: compact, lossless: lossless, at: now)
                received = delivery.receiver?.close("the peripheral restarted") ?? []
            } else {
                delivery.outgoing.sender.linkUp(
                    .peripheral, window: window, compact: compact, lossless: lossless, at: now)
            }
            var receiver = TransferReceiver(
                configuration: delivery.settings.receiverConfiguration, session: welcome.session)
            received += receiver.linkUp(next: welcome.next, at: now)
            delivery.receiver = receiver
        }
        delivery.peripheralToken = welcome.peripheral
        var actions = performOutbound(outbound) + performInbound(received)
        for waiting in delivery.waiting { enqueue(waiting.message, number: waiting.number) }
        delivery.waiting = []
        if case .open(let offer, let mtu, _) = delivery.lane {
            actions.append(
                .report(.lane(.open(peripheralName, psm: offer.psm, valueLength: mtu.maxValueLength(.lane)))))
        }
        actions += announceReady(peer, relay, protocolVersion: 2)
        return actions + pump()
    }

    /// The hello went unanswered for a while: say it again, or speak version 1 on this link.
    mutating func greetingTimedOut() -> [CentralAction] {
        guard case .greeting(let attempt, let since) = delivery.phase, now >= since + CentralDelivery.helloInterval,
            case .ready(let peer, let relay) = link
        else { return [] }
        if delivery.laneMTU != nil, attempt >= Self.laneHelloAttempts { return laneHelloUnanswered() }
        if attempt < delivery.greetingAttempts {
            delivery.phase = .greeting(attempt: attempt + 1, since: now)
            delivery.outgoing.control.append(delivery.hello(address: adapterInfo?.address))
            return pump()
        }
        let seconds = Int(CentralDelivery.helloInterval) * delivery.greetingAttempts
        return speakVersion1(
            peer, relay,
            because:
                "\(peer) offers protocol 2 but did not answer in \(seconds) s: using protocol 1 (no delivery confirmation)"
        )
    }

    /// The peripheral broke protocol 2: reported once, its messages both ways end, and the rest of
    /// the link speaks protocol 1 (nothing more of its session frames is read until the next link).
    private mutating func cutOff(_ breach: ProtocolBreach) -> [CentralAction] {
        guard delivery.session != nil, case .ready(let peer, let relay) = link else { return [] }
        let why = "the peripheral broke protocol 2"
        delivery.phase = .fallback
        var actions = performOutbound(delivery.outgoing.sender.remove(.peripheral, why))
        actions += performInbound(delivery.receiver?.close(why) ?? [])
        delivery.receiver = nil
        delivery.peripheralToken = nil
        return actions
            + speakVersion1(
                peer, relay,
                because:
                    "\(peer) is cut off from protocol 2 on this link: \(breach) (its messages fail): using protocol 1")
    }

    /// This link speaks version 1 from now on: subscribe to the notify characteristic, write to the
    /// write characteristic; the messages waiting for the handshake go that way.
    private mutating func speakVersion1(
        _ peer: Peer, _ relay: RelayLink, because why: String
    )
        -> [CentralAction]
    {
        var relay = relay
        delivery.phase = .fallback
        delivery.outgoing.control.removeAll()
        relay.session = nil
        relay.notifying = false
        relay.notifyVia = nil
        relay.path = nil
        link = .subscribing(peer, relay)
        for waiting in delivery.waiting {
            writing.outbox.append(
                waiting.message, number: waiting.number, chunker: &writing.chunker, tag: .message(waiting.number))
        }
        delivery.waiting = []
        // A value the full socket had not taken was not written: the sockets go, and it fails.
        let wasWaiting = writing.waiting != nil
        var actions: [CentralAction] = [.report(.error(.speakingVersion1(why: why))), releaseSockets()]
        if wasWaiting { actions += sendFinished(.failed(.fellBackToVersion1)) }
        actions.append(settings.notifyPath == .socket ? .acquireNotify(relay.notify) : .startNotify(relay.notify))
        actions.append(settings.writePath == .writeValue ? .readMTU(relay.write) : .acquireWrite(relay.write))
        return actions
    }

    // MARK: Messages

    /// Queues `message` (the program's message `number`) for version 2.
    mutating func enqueue(_ message: Message, number: Int) {
        delivery.outgoing.enqueue(message, number: number, for: [.peripheral], at: now)
    }

    /// The next data frame of the version-2 sender, if one may go now.
    mutating func nextDataFrame(mtu: MTU, carrier: ValueCarrier) -> (bytes: [UInt8], write: InFlightWrite)? {
        guard let session = delivery.session,
            let frame = delivery.outgoing.nextDataFrame(at: now, mtu: mtu, carrier: carrier, session: { _ in session })
        else { return nil }
        return (frame.bytes, .data(final: frame.final))
    }

    /// A data frame was written: the message's `sent` once its last byte went out.
    mutating func dataWritten(_ final: FinalFrame?) -> [CentralAction] {
        guard let final, let sent = delivery.outgoing.sent(final) else { return [] }
        writing.messagesSent += 1
        var actions: [CentralAction] = [.report(.transfer(.sent(sent)))]
        return actions + commands.finish(.message(final.number), nil)
    }

    // MARK: Values on the session characteristic

    /// A notification on the session characteristic.
    mutating func sessionValue(_ value: [UInt8]) -> [CentralAction] {
        let frame: SessionFrame
        do {
            switch try SessionValue(parsing: value) {
            case .counter(let counter):
                return [receiving.heard(counter, from: peripheralName)]
            case .compact(let compact):
                return compactData(compact)
            case .frame(let parsed):
                frame = parsed
            }
        } catch {
            return delivery.inbound.protocolError(error, from: peripheralName, at: now).map {
                [.report(.transfer($0))]
            } ?? []
        }
        switch frame {
        case .welcome(let welcome):
            return welcomed(welcome)
        case .data(let data):
            guard let session = delivery.session, data.session == session || data.session == .everyone,
                delivery.receiver != nil
            else { return [] }
            // In place: a copy of the receiver would copy the partial message on every frame.
            let fresh = delivery.receiver!.counts.framesWithNewBytes
            let actions = delivery.receiver!.receive(data, at: now)
            // Only a frame that brought new bytes says the peripheral is sending (a wider flight).
            if delivery.receiver!.counts.framesWithNewBytes > fresh {
                delivery.outgoing.sender.heardData(from: .peripheral, at: now)
            }
            return performInbound(actions) + pump()
        case .acknowledgement(let ack):
            guard let session = delivery.session, ack.session == session else { return [] }
            return performOutbound(delivery.outgoing.sender.acknowledge(ack, from: .peripheral, at: now)) + pump()
        case .abort(let abort):
            guard let session = delivery.session, abort.session == session || abort.session == .everyone,
                delivery.receiver != nil
            else { return [] }
            let actions = delivery.receiver!.abort(abort, at: now)
            return performInbound(actions)
        case .hello:
            return []
        }
    }

    /// A compact data frame on the session characteristic: bytes of the peripheral's message in
    /// progress, taken only on a link whose welcome said version 3.
    private mutating func compactData(_ frame: CompactDataFrame) -> [CentralAction] {
        guard delivery.session != nil, delivery.receiver != nil else { return [] }
        guard delivery.compact else {
            return delivery.inbound.protocolError(.compactNotAgreed, from: peripheralName, at: now).map {
                [.report(.transfer($0))]
            } ?? []
        }
        let fresh = delivery.receiver!.counts.framesWithNewBytes
        let actions = delivery.receiver!.receive(frame, at: now)
        if delivery.receiver!.counts.framesWithNewBytes > fresh {
            delivery.outgoing.sender.heardData(from: .peripheral, at: now)
        }
        return performInbound(actions) + pump()
    }

    /// A message from the peripheral is saved (or is not): its final acknowledgement says which.
    mutating func saved(_ receipt: SaveReceipt) -> [CentralAction] {
        guard receipt.from == peripheralName, delivery.receiver != nil else { return [] }
        let actions = delivery.receiver!.saved(receipt.transfer, receipt.saved, at: now)
        return performInbound(actions) + pump()
    }

    // MARK: Time and the link

    /// The delivery timer fired: what is due in the handshake, the sender and the receiver.
    mutating func deadlineReached() -> [CentralAction] {
        var actions = greetingTimedOut() + uartIdleLines()
        actions += performOutbound(delivery.outgoing.sender.tick(at: now))
        if var receiver = delivery.receiver {
            let received = receiver.tick(at: now)
            delivery.receiver = receiver
            actions += performInbound(received)
        }
        return actions + pump()
    }

    /// The link ended. Kept for a resume unless `keep` is false (a disconnect asked for, quitting):
    /// then what is pending fails, with `reason`.
    mutating func deliveryLinkEnded(keep: Bool, reason: String) -> [CentralAction] {
        delivery.outgoing.control.removeAll()
        delivery.lane = .none
        let wasEstablished = delivery.session != nil
        delivery.phase = .idle
        delivery.resumingOnLink = false
        var actions: [CentralAction] = []
        if keep {
            if wasEstablished {
                delivery.outgoing.sender.linkDown(.peripheral, at: now)
                delivery.receiver?.linkDown(at: now)
            }
            return actions
        }
        actions += performOutbound(delivery.outgoing.sender.remove(.peripheral, reason))
        actions += performInbound(delivery.receiver?.close(reason) ?? [])
        delivery.receiver = nil
        delivery.peripheralToken = nil
        for waiting in delivery.waiting {
            let problem = CentralProblem.messageNotSent(number: waiting.number, reason: reason)
            actions.append(.report(.error(problem)))
            delivery.outgoing.countFailure()
            actions += commands.finish(.message(waiting.number), problem)
        }
        delivery.waiting = []
        return actions
    }

    // MARK: Outcomes

    /// The sender's `actions`: events, and the commands of messages that reached their end.
    private mutating func performOutbound(_ actions: [TransferSender<PeripheralRecipient>.Action]) -> [CentralAction] {
        let (session, name) = (delivery.session, peripheralName)
        let outcomes = delivery.outgoing.absorb(actions, name: { _ in name }, session: { _ in session })
        var result: [CentralAction] = []
        for outcome in outcomes {
            switch outcome {
            case .report(let event):
                result.append(.report(.transfer(event)))
            case .settled(let number, _, let delivered):
                result += commands.finish(.message(number), delivered ? nil : .messageNotDelivered(number: number))
            case .breach(_, let breach):
                result += cutOff(breach)
            }
        }
        return result
    }

    /// The receiver's `actions`: events, messages and files; acknowledgements go before data.
    private mutating func performInbound(_ actions: [TransferReceiver.Action]) -> [CentralAction] {
        delivery.inbound.actions(
            for: actions, from: peripheralName, arrivals: &receiving.arrivals,
            acknowledgingOn: &delivery.outgoing.control,
            at: now)
    }
}
