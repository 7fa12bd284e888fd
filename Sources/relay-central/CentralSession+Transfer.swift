import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Counters and messages: writing one value at a time (the handshake's and acknowledgements'
/// frames first, then counters and version-1 frames, then version-2 data), and what the
/// peripheral notifies.
extension CentralSession {
    /// The carrier of counters, version-1 frames and UART text on the ready link: its write
    /// characteristic (the session characteristic with protocol 2) by the link's write path.
    var gattCarrier: Carrier? {
        guard case .ready(_, let relay) = link, let path = relay.path else { return nil }
        return .gatt(relay.dataWrite, path)
    }

    /// The carrier of protocol 2's frames on the ready link and the MTU they are cut for: the
    /// lane while it is open, else GATT (nil MTU: not learned yet).
    var frameCarrier: (carrier: Carrier, mtu: MTU?)? {
        if let laneMTU = delivery.laneMTU, readyLink != nil { return (.lane, laneMTU) }
        guard let gatt = gattCarrier else { return nil }
        return (gatt, readyLink?.mtu)
    }

    /// Starts writing the next value when the link is ready and nothing is in flight.
    mutating func pump() -> [CentralAction] {
        guard writing.inFlight == nil, let relay = readyLink, let gatt = gattCarrier,
            let frames = frameCarrier
        else { return [] }
        if relay.service == .nus {
            guard let value = takeUARTValue() else { return [] }
            return [writing.send(value.bytes, on: gatt, as: .uart(value))]
        }
        if relay.session != nil, let next = delivery.outgoing.control.popFirst() {
            let frame = next.fitting((frames.mtu ?? .default).maxValueLength(frames.carrier.valueCarrier))
            return [writing.send(frame.encoded, on: frames.carrier, as: .control)]
        }
        if let value = writing.outbox.next() {
            return [writing.send(value.bytes, on: gatt, as: .outbox(value))]
        }
        if relay.session != nil, let mtu = frames.mtu,
            let (bytes, write) = nextDataFrame(mtu: mtu, carrier: frames.carrier.valueCarrier)
        {
            return [writing.send(bytes, on: frames.carrier, as: write)]
        }
        return []
    }

    /// The outcome of the value in flight: the next one goes, unless the carrier was full.
    mutating func sendFinished(_ outcome: SendOutcome) -> [CentralAction] {
        switch outcome {
        case .full:
            writing.carrierFull()
            return []
        case .sent: return written(error: nil)
        case .failed(let error): return written(error: error)
        }
    }

    /// The value in flight went (`error` nil) or did not.
    private mutating func written(error: TransportError?) -> [CentralAction] {
        guard let written = writing.finishInFlight() else { return [] }
        let value: Outbox<CentralWait>.Value
        switch written {
        case .control:
            return pump()
        case .data(let final):
            // A frame that did not go is resent when its acknowledgement does not come.
            let actions = error == nil ? dataWritten(final) : []
            return actions + pump()
        case .uart(let text):
            return uartWritten(text, error: error) + pump()
        case .outbox(let outboxValue):
            value = outboxValue
        }
        var actions: [CentralAction] = []
        if let error {
            let failed: (problem: CentralProblem, wait: CentralWait?)?
            if let counter = value.counter {
                failed = (.counterNotWritten(counter, reason: CentralProblem.writeReason(error)), value.completion?.tag)
            } else if let (message, taken, wait) = frameFailed(value) {
                failed = (
                    .frameNotWritten(
                        number: message.number, frame: taken, of: message.frames,
                        reason: CentralProblem.writeReason(error)),
                    wait
                )
            } else {
                failed = nil
            }
            if let failed {
                actions.append(.report(.error(failed.problem)))
                if let wait = failed.wait { actions += commands.finish(wait, failed.problem) }
            }
        } else {
            switch value.completion {
            case .counter(let counter, let wait)?:
                actions.append(.report(.written(counter)))
                actions += commands.finish(wait, nil)
            case .message(let message, let wait)?:
                writing.messagesSent += 1
                actions.append(.report(.transfer(.sent(message))))
                // Version 1 has no acknowledgement: sent is all there is to know.
                actions.append(.report(.transfer(.unconfirmed(message.summary, to: peripheralName))))
                actions += commands.finish(wait, nil)
            case nil:
                break
            }
        }
        return actions + pump()
    }

    /// The message a failed frame belonged to (dropped from the outbox with its remaining frames),
    /// the frame's number and what its command waits for.
    private mutating func frameFailed(_ value: Outbox<CentralWait>.Value) -> (OutgoingMessage, Int, CentralWait)? {
        if case .message(let message, let wait)? = value.completion { return (message, message.frames, wait) }
        guard let (message, taken) = writing.outbox.frontMessageProgress,
            let (_, wait) = writing.outbox.dropFrontMessage()
        else {
            return nil
        }
        return (message, taken, wait)
    }

    mutating func writeSocketClosed() -> [CentralAction] {
        if case .ready(let peer, var relay) = link, relay.path == .socket {
            relay.path = .writeValue
            link = .ready(peer, relay)
        }
        // A value the socket had not taken yet was not written (later ones go by `WriteValue`).
        guard let waiting = writing.waiting, case .gatt = waiting.carrier else { return [] }
        return sendFinished(.failed(.closed(waiting.carrier)))
    }

    /// `carrier` can take more: the value that waited for it goes again.
    mutating func carrierWritable(_ carrier: Carrier) -> [CentralAction] {
        guard let waiting = writing.room(on: carrier) else { return [] }
        return [.send(waiting.value, on: waiting.carrier)]
    }

    /// Closes the write and notification sockets; a value waiting for the full write socket
    /// goes with them.
    mutating func releaseSockets() -> CentralAction {
        writing.forgetWaiting()
        delivery.laneUnused()
        return .releaseSockets
    }

    /// A `Value` change of a characteristic: on the notify characteristic, a notification (signal
    /// path) unless it echoes a read, which sets `Value` too.
    mutating func valueChanged(_ id: CharacteristicID, _ value: [UInt8]) -> [CentralAction] {
        guard case .some(let relay) = subscribingOrReadyLink, id == relay.dataNotify else { return [] }
        // Through the socket, notifications never change `Value`: only a read does.
        if relay.notifyVia == .socket { return [] }
        if reading.hold(value) { return [] }
        return notified(value)
    }

    /// A notification from the peripheral.
    mutating func notified(_ value: [UInt8]) -> [CentralAction] {
        guard let relay = subscribingOrReadyLink else { return [] }
        if relay.service == .nus { return uartNotified(value) }
        if relay.session != nil {
            // The peripheral's frames come by notification (counters always do): another central
            // of it is not on a lane, and what this one hears may be lost, so the usual time-outs.
            if value.count != Counter.encodedLength { delivery.outgoing.sender.setLossless(.peripheral, false) }
            return sessionValue(value)
        }
        let sender = PeerName(.peripheral, peer?.address)
        var actions: [CentralAction] = []
        for event in receiving.inbound.receive(value, at: now) {
            switch event {
            case .counter(let counter):
                actions.append(receiving.heard(counter, from: sender))
            case .message(let message, let id, _):
                actions.append(.deliver(receiving.arrivals.next(message, id: Int(id.value), from: sender, at: now)))
            case .receiving, .protocolError, .dropped:
                if let report = TransferEvent(event, from: sender) { actions.append(.report(.transfer(report))) }
            }
        }
        return actions
    }

    /// The relay characteristics of a link being subscribed or ready.
    var subscribingOrReadyLink: RelayLink? {
        switch link {
        case .subscribing(_, let relay), .ready(_, let relay): return relay
        default: return nil
        }
    }

    mutating func readFinished(_ role: CharacteristicRole, _ result: Result<[UInt8], BlueZError>) -> [CentralAction] {
        guard commands.isWaiting(for: .read), reading.pending > 0 else { return [] }
        let (failures, held) = reading.answered(role, result)
        var actions: [CentralAction] = []
        if case .success(let value) = result { actions.append(.report(.read(role, value: value))) }
        if let failures { actions += commands.finish(.read, failures.isEmpty ? nil : .readFailed(failures)) }
        for value in held { actions += notified(value) }
        return actions
    }
}

extension Outbox.Completion {
    /// The tag of the counter or message this completes.
    var tag: Tag {
        switch self {
        case .counter(_, let tag), .message(_, let tag): return tag
        }
    }
}
