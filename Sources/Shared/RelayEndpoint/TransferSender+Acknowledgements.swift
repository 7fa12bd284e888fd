import RelayProtocol

/// Acknowledgements: what the receiver holds, what was lost, the round trip and the delivery rate.
extension TransferSender {
    /// An acknowledgement from `recipient`.
    public mutating func acknowledge(_ ack: Acknowledgement, from recipient: Recipient, at now: Double) -> [Action] {
        guard peers[recipient] != nil,
            let index = entries.firstIndex(where: { $0.transfer == ack.transfer }),
            var track = entries[index].tracks[recipient], !track.done
        else { return [] }
        // No receiver holds bytes past the end of the message: a claim of them is not a loss or a
        // delay but a broken or hostile peer.
        let length = entries[index].streamLength
        if Int(ack.received) > length || ack.spans.contains(where: { Int($0.end) > length }) {
            return [.breach(by: recipient, .acknowledgedBeyondTheMessage(ack.transfer))]
        }
        var actions: [Action] = []
        if ack.status.isFinal {
            actions += releaseHold(recipient, at: now)
            if ack.status == .delivered {
                track.done = true
                track.flights = []
                entries[index].tracks[recipient] = track
                let seconds = now - entries[index].queuedAt
                actions.append(.delivered(number: entries[index].number, to: recipient, seconds: seconds))
            } else {
                actions += fail(index, recipient, .refused(ack.status), abort: nil)
            }
            return actions + retireFinished()
        }
        // Only bytes sent to this recipient can be held: an acknowledgement of others (a broken or
        // hostile peer) grows neither what is kept here nor the progress that keeps the delivery
        // time-out away; and what is held beyond the first gaps is kept to a few ranges (a peer
        // acknowledging every other byte made one range per byte), the rest sent again if missing.
        track.acknowledgedOnLink = true
        for claimed in [0..<Int(ack.received)] + ack.spans.map({ Int($0.start)..<Int($0.end) }) {
            for piece in track.transmitted.intersection(with: claimed) { track.held.insert(piece) }
        }
        track.held.keepLowest(Self.maximumHeldRanges)
        // Progress is more held than ever before: ranges forgotten above and acknowledged again
        // are not progress twice.
        let held = track.held.count
        if held > track.mostHeld {
            track.lastProgressAt = now
            sampleRate(held - track.mostHeld, for: recipient, at: now)
            track.mostHeld = held
        }
        // Round trip from the newest first transmission now held; then losses: bytes sent well
        // before others that arrived. Only first transmissions count for both: a resent frame
        // overtakes everything still queued, so its arrival says nothing about those.
        var sample: Double?
        var remaining: [Flight] = []
        var repairArrived = false
        for flight in track.flights {
            if track.held.contains(flight.range) {
                guard !flight.isRetransmission else {
                    repairArrived = true
                    continue
                }
                track.highestHeldSequence = max(track.highestHeldSequence, flight.sequence)
                sample = now - flight.at
            } else {
                remaining.append(flight)
            }
        }
        track.flights = []
        if let witness = track.timeoutWitness, track.held.contains(witness) {
            // The frame the timer ran out on arrived: the time-out was a delay, and what was in
            // flight behind it is on its way too.
            track.timeoutWitness = nil
            track.timedOutAt = nil
        }
        // After a time-out, the repair's acknowledgement shows the link works again: everything
        // sent before the time-out and still missing was lost with the rest (a burst), and goes
        // again now instead of one time-out at a time.
        let lostBefore = repairArrived ? track.timedOutAt : nil
        if repairArrived {
            track.timedOutAt = nil
            track.timeoutWitness = nil
            peers[recipient]?.backoff = 1
        }
        for flight in remaining {
            if let lostBefore, flight.at <= lostBefore, !flight.isRetransmission {
                for gap in track.held.missing(in: flight.range) { track.sent.remove(gap) }
            } else if flight.sequence + configuration.reorderThreshold <= track.highestHeldSequence {
                for gap in track.held.missing(in: flight.range) { track.sent.remove(gap) }
            } else {
                track.flights.append(flight)
            }
        }
        entries[index].tracks[recipient] = track
        if let sample { measured(sample, for: recipient) }
        actions += releaseHold(recipient, at: now)
        actions += progressIfDue(index, at: now)
        return actions
    }
}
