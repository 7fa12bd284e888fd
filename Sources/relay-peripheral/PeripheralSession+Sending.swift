import RelayApp
import RelayEndpoint
import RelayProtocol

/// Handing queued notifications to bluetoothd, one value at a time: as fast as the
/// `AcquireNotify` socket takes them (it says when it is full), else in bursts with short pauses
/// (`PropertiesChanged` signals have no flow control). Values for the L2CAP channels go into each
/// channel's own outbox (`LaneOutbox`) and count as handed over there.
extension PeripheralSession {
    /// Values handed over per burst when nothing paces them (`PropertiesChanged`).
    static let unpacedBurst = 8
    /// Pause between unpaced bursts, in seconds.
    static let unpacedInterval = 0.002

    /// Whether anything waits to be handed over, or is on its way (version-2 messages until
    /// every session is done with them).
    var hasPendingValues: Bool {
        !sending.outbox.isEmpty || sending.inFlight != nil || sending.blocked != nil || !sending.sessionCounters.isEmpty
            || delivery.isBusy || !uart.queue.isEmpty || lanes.holdValues
    }

    /// Counters and messages queued (a message partly sent counts as one).
    var pendingCount: Int {
        sending.outbox.count + sending.sessionCounters.count + delivery.outgoing.sender.pendingCount
    }

    /// Starts handing values over unless that is under way.
    mutating func startSending() -> [PeripheralAction] {
        guard sending.inFlight == nil, sending.blocked == nil, !sending.paused else { return [] }
        return handOverNext()
    }

    /// The next value: the session characteristic's welcomes, acknowledgements and counters
    /// first, then the outbox (counters and version-1 frames), then version-2 data.
    private mutating func handOverNext() -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        while true {
            guard
                let value = sending.takeBlocked() ?? nextSessionValue(afterOutbox: false) ?? takeNextValue()
                    ?? nextSessionValue(afterOutbox: true) ?? takeUARTValue()
            else {
                sending.endBurst()
                return actions
            }
            // Protocol 2's frames go on the channels they were cut for (when every linked session
            // was on one), each channel at its own pace: handed over once queued there.
            switch value.route {
            case .lanes(let route):
                actions += traceSentOnLanes(value.bytes) + queueOnLanes(value.bytes, route: route)
                actions += handedOver(value)
            case .notification(let characteristic):
                sending.handOver(value)
                return actions + [.send([value.bytes], on: .notification(characteristic))]
            }
        }
    }

    private mutating func takeNextValue() -> OutgoingValue? {
        guard let value = sending.outbox.next() else { return nil }
        let completion: PeripheralEvent?
        var also: [PeripheralEvent] = []
        switch value.completion {
        case .counter(let counter, let centrals)?: completion = .notified(value: counter.value, centrals: centrals)
        case .message(let message, _)?:
            completion = .transfer(.sent(message))
            // Version 1 has no acknowledgement: sent is all there is to know.
            let legacy = centrals.values.filter(\.subscribed).compactMap(\.address).sorted()
            also = (legacy.isEmpty ? [nil] : legacy.map { Optional($0) }).map {
                .transfer(.unconfirmed(message.summary, to: PeerName(.central, $0)))
            }
        case nil: completion = nil
        }
        return OutgoingValue(
            bytes: value.bytes, counter: value.counter, completion: completion, alsoReport: also)
    }

    /// The outcome of the notification in flight.
    mutating func notifyFinished(_ outcome: PeripheralSendOutcome) -> [PeripheralAction] {
        guard let value = sending.outcomeHeard() else { return [] }
        switch outcome {
        case .took(0, _, _):
            sending.hold(value)
            return []
        case .took(_, _, let paced):
            let pause = sending.notified(
                value, paced: paced, burstLimit: Self.unpacedBurst,
                moreWaiting: !sending.outbox.isEmpty || !uart.queue.isEmpty)
            var actions: [PeripheralAction] = []
            // A frame changed the characteristic's value: reads return the last counter.
            if value.counter == nil, value.route == .notification(.notify) {
                actions.append(.setReadValue(sending.lastNotified?.encoded ?? [], of: .notify))
            }
            actions += handedOver(value)
            if pause { return actions + [.startTimer(.sendPause, after: Self.unpacedInterval)] }
            return actions + handOverNext()
        case .failed(let failure) where value.route == .notification(.uartTX):
            // The UART apps left (or bluetoothd went): the rest of their text goes too.
            uart.dropQueue()
            return [.report(.error(.valueNotSent(counter: nil, failure), from: nil))] + handOverNext()
        case .failed(let failure) where value.route == .notification(.session):
            // Version 2 repairs a lost frame; a counter is reported lost.
            let report: [PeripheralAction] =
                value.counter.map { [.report(.error(.valueNotSent(counter: $0, failure), from: nil))] } ?? []
            return report + handOverNext()
        case .failed(let failure):
            return [.report(.error(.valueNotSent(counter: value.counter, failure), from: nil))]
                + abandonOutbox(because: .notifyFailed(failure))
        }
    }

    /// What a value handed over completes: its counter's `notified`, a version-1 message's
    /// `sent` and `unconfirmed`s, a version-2 message's `sent` (its last frame).
    private mutating func handedOver(_ value: OutgoingValue) -> [PeripheralAction] {
        var events = (value.completion.map { [$0] } ?? []) + value.alsoReport
        if let final = value.final, let sent = delivery.outgoing.sent(final) { events.append(.transfer(.sent(sent))) }
        return events.map { .report($0) }
    }

    /// The socket can take more.
    mutating func writable() -> [PeripheralAction] {
        guard sending.blocked != nil, sending.inFlight == nil else { return [] }
        return handOverNext()
    }

    /// The pause between bursts is over.
    mutating func pauseOver() -> [PeripheralAction] {
        guard sending.pauseOver() else { return [] }
        return sending.inFlight == nil ? handOverNext() : []
    }

    /// Drops everything queued (the link went away), reporting what was lost.
    mutating func abandonOutbox(because reason: SendAbandonReason) -> [PeripheralAction] {
        // A value on its way goes with the queue (the link that would carry it is gone); when it
        // was a counter or a message's last frame, that counter or message is lost too.
        var messages = 0
        var counters = 0
        for item in sending.outbox.removeAll() {
            if case .message = item { messages += 1 } else { counters += 1 }
        }
        if let value = sending.inFlight ?? sending.blocked, value.completion != nil {
            if value.counter != nil { counters += 1 } else { messages += 1 }
        }
        sending.forgetHandOver()
        guard messages + counters > 0 else { return [] }
        return [.report(.error(.notSent(messages: messages, counters: counters, reason), from: nil))]
    }
}
