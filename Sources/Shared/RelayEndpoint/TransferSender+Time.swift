import RelayProtocol

/// Time: retransmissions, progress, time-outs and the resume hold.
extension TransferSender {
    /// When `tick` has something to do.
    public var nextDeadline: Double? {
        var deadlines: [Double] = []
        for (recipient, peer) in peers {
            switch peer.state {
            case .holding(let until): deadlines.append(until)
            case .away(let since): deadlines.append(since + configuration.resumeTimeout)
            case .linked:
                guard let index = currentIndex(of: recipient) else { continue }
                let track = entries[index].tracks[recipient]!
                if let oldest = track.flights.map(\.at).min() {
                    deadlines.append(oldest + retransmissionTimeout(recipient))
                } else if !track.probe, let sent = track.lastSentAt,
                    track.held.contains(0..<entries[index].streamLength)
                {
                    deadlines.append(sent + retransmissionTimeout(recipient))
                }
                if let last = track.lastProgressAt { deadlines.append(last + configuration.deliveryTimeout) }
            }
        }
        return deadlines.min()
    }

    /// Runs what is due at `now`: resends after time-outs, ends holds, fails what waited too long.
    public mutating func tick(at now: Double) -> [Action] {
        var actions: [Action] = []
        for recipient in peers.keys.sorted() {
            guard let peer = peers[recipient] else { continue }
            switch peer.state {
            case .holding(let until) where now >= until:
                actions += releaseHold(recipient, at: now)
            case .away(let since) where now >= since + configuration.resumeTimeout:
                let seconds = Int(configuration.resumeTimeout)
                for index in entries.indices where entries[index].tracks[recipient].map({ !$0.done }) ?? false {
                    actions += fail(index, recipient, .notResumed(seconds: seconds), abort: nil)
                }
                peers[recipient] = nil
                for index in entries.indices { entries[index].tracks[recipient] = nil }
            case .linked:
                guard let index = currentIndex(of: recipient) else { continue }
                var track = entries[index].tracks[recipient]!
                if let last = track.lastProgressAt, now >= last + configuration.deliveryTimeout {
                    // A recipient that took nothing for the delivery time-out fails every message
                    // queued for it, not one per time-out: a silent peer would pin each in turn.
                    // Each is aborted, in order, so an honest receiver's expected transfer follows.
                    let failure = Failure.noProgress(seconds: Int(configuration.deliveryTimeout))
                    for later in entries.indices[index...] {
                        actions += fail(later, recipient, failure, abort: .noProgress)
                    }
                    continue
                }
                if track.flights.isEmpty, !track.probe, let sent = track.lastSentAt,
                    track.held.contains(0..<entries[index].streamLength), now >= sent + retransmissionTimeout(recipient)
                {
                    // All acknowledged, the final word lost: ask again.
                    track.probe = true
                    entries[index].tracks[recipient] = track
                    counts.timeouts += 1
                    peers[recipient]!.backoff = min(peers[recipient]!.backoff * 2, 64)
                } else if let oldest = track.flights.map(\.at).min(), now >= oldest + retransmissionTimeout(recipient) {
                    // Only the first unacknowledged bytes go again (what a deep queue delayed is
                    // not sent twice); its acknowledgement shows what else was lost, which the
                    // reordering rule then resends. The others wait a new time-out.
                    // Its last byte stays in flight as the witness (`Track.timeoutWitness`): an
                    // acknowledgement of the rest cannot then be mistaken for the repair's when
                    // it is the first transmission's, late behind a stalled receiver.
                    let first = track.flights.indices.min {
                        track.flights[$0].range.lowerBound < track.flights[$1].range.lowerBound
                    }!
                    // Only a first transmission gives a witness (a repair's late copy proves
                    // nothing of what the first time-out found missing, whose witness stays), and
                    // only when bytes before it are missing too (else nothing would go again).
                    let timedOut = track.flights.remove(at: first)
                    var repaired = timedOut.range
                    let last = (repaired.upperBound - 1)..<repaired.upperBound
                    if !timedOut.isRetransmission {
                        track.timeoutWitness = nil
                        if repaired.count > 1, !track.held.contains(last),
                            !track.held.missing(in: repaired.lowerBound..<last.lowerBound).isEmpty
                        {
                            repaired = repaired.lowerBound..<last.lowerBound
                            track.timeoutWitness = last
                            track.flights.append(
                                Flight(range: last, sequence: timedOut.sequence, at: now, isRetransmission: false))
                        }
                    }
                    for gap in track.held.missing(in: repaired) { track.sent.remove(gap) }
                    track.flights = track.flights.map {
                        Flight(range: $0.range, sequence: $0.sequence, at: now, isRetransmission: $0.isRetransmission)
                    }
                    track.timedOutAt = now
                    entries[index].tracks[recipient] = track
                    counts.timeouts += 1
                    peers[recipient]!.backoff = min(peers[recipient]!.backoff * 2, 64)
                }
            default:
                break
            }
        }
        return actions + retireFinished()
    }

    mutating func progressIfDue(_ index: Int, at now: Double) -> [Action] {
        let entry = entries[index]
        let active = entry.tracks.values.filter { !$0.done }
        guard let held = active.map(\.held.prefixEnd).min() else { return [] }
        let bytes = messageBytes(held, entry)
        if let last = entry.lastProgress, now - last.at < configuration.progressInterval || bytes == last.bytes {
            return []
        }
        let since = entry.lastProgress ?? (entry.queuedAt, 0)
        let rate = now > since.at ? Double(bytes - since.bytes) / (now - since.at) : 0
        entries[index].lastProgress = (now, bytes)
        return [
            .progress(number: entry.number, bytes: bytes, total: entry.streamLength - entry.headerLength, rate: rate)
        ]
    }
}
