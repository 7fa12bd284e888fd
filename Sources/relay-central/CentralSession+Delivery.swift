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
        delivery.greet(address: adapterInfo?.address, at: now)
        return pump()
    }

    /// A welcome came on the session characteristic (for this central, or another).
    mutating func welcomed(_ welcome: Welcome) -> [CentralAction] {
        guard case .greeting = delivery.phase, welcome.central == delivery.settings.token,
            case .ready(let peer, let relay) = link
        else { return [] }
        let (outbound, received) = delivery.welcome(welcome, at: now)
        var actions = performOutbound(outbound) + performInbound(received)
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
            delivery.greet(attempt: attempt + 1, address: adapterInfo?.address, at: now)
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
        let (outbound, received) = delivery.end("the peripheral broke protocol 2")
        return performOutbound(outbound) + performInbound(received)
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
        let waiting = delivery.fallBack()
        relay.session = nil
        relay.notifying = false
        relay.notifyVia = nil
        relay.path = nil
        link = .subscribing(peer, relay)
        for (number, message) in waiting {
            writing.outbox.append(message, number: number, chunker: &writing.chunker, tag: .message(number))
        }
        // A value the full socket had not taken was not written: the sockets go, and it fails.
        let wasWaiting = writing.waiting != nil
        var actions: [CentralAction] = [.report(.error(.speakingVersion1(why: why))), releaseSockets()]
        if wasWaiting { actions += sendFinished(.failed(.fellBackToVersion1)) }
        actions.append(settings.notifyPath == .socket ? .acquireNotify(relay.notify) : .startNotify(relay.notify))
        actions.append(settings.writePath == .writeValue ? .readMTU(relay.write) : .acquireWrite(relay.write))
        return actions
    }

    // MARK: Messages

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
        actions += performInbound(delivery.receiver?.tick(at: now) ?? [])
        return actions + pump()
    }

    /// The link ended. Kept for a resume unless `keep` is false (a disconnect asked for, quitting):
    /// then what is pending fails, with `reason`.
    mutating func deliveryLinkEnded(keep: Bool, reason: String) -> [CentralAction] {
        let wasEstablished = delivery.linkEnded()
        if keep {
            if wasEstablished { delivery.linkDown(at: now) }
            return []
        }
        let (outbound, received) = delivery.end(reason)
        var actions = performOutbound(outbound) + performInbound(received)
        for number in delivery.failWaiting() {
            let problem = CentralProblem.messageNotSent(number: number, reason: reason)
            actions.append(.report(.error(problem)))
            actions += commands.finish(.message(number), problem)
        }
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
