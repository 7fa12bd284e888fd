import RelayProtocol

/// Links going down and up, a recipient restarting or leaving.
extension TransferSender {
    /// `recipient` is linked (a hello or welcome came): a new recipient, or one coming back. One
    /// coming back first waits a moment for its receiver's account (`resumeHold`). `compact`: it
    /// takes compact data frames, once it acknowledged a message on this link. `lossless`: its
    /// carrier loses nothing while up (`losslessRetransmissionTimeout`).
    public mutating func linkUp(
        _ recipient: Recipient, window: Int, compact: Bool = false, lossless: Bool = false, at now: Double
    ) {
        let window = max(1, min(configuration.window, window))
        for index in entries.indices where entries[index].tracks[recipient] != nil {
            entries[index].tracks[recipient]!.acknowledgedOnLink = false
        }
        guard var peer = peers[recipient] else {
            peers[recipient] = Peer(window: window, compact: compact, lossless: lossless)
            return
        }
        peer.window = window
        peer.compact = compact
        peer.lossless = lossless
        if case .away = peer.state {
            let started = entries.contains { entry in
                entry.tracks[recipient].map { !$0.done && !$0.transmitted.isEmpty } ?? false
            }
            peer.state = started ? .holding(until: now + configuration.resumeHold) : .linked
            for index in entries.indices where entries[index].tracks[recipient].map({ !$0.done }) ?? false {
                if !(entries[index].tracks[recipient]!.transmitted.isEmpty) {
                    entries[index].tracks[recipient]!.resumeToReport = true
                }
            }
        }
        peers[recipient] = peer
    }

    /// Whether `recipient`'s carrier loses nothing while up (`losslessRetransmissionTimeout`): the
    /// owner says so again whenever the carrier its frames take changes without a new link.
    public mutating func setLossless(_ recipient: Recipient, _ lossless: Bool) {
        peers[recipient]?.lossless = lossless
    }

    /// `recipient`'s link went down: what it has not acknowledged counts as not sent.
    public mutating func linkDown(_ recipient: Recipient, at now: Double) {
        guard peers[recipient] != nil else { return }
        peers[recipient]!.state = .away(since: now)
        for index in entries.indices {
            guard var track = entries[index].tracks[recipient], !track.done else { continue }
            track.flights = []
            track.sent = track.held
            track.acknowledgedOnLink = false
            entries[index].tracks[recipient] = track
        }
    }

    /// `recipient` is a new process under the same name: messages already started for it fail
    /// (the new one holds nothing of them; each gets an abort so it skips them), the rest go to it.
    public mutating func restarted(
        _ recipient: Recipient, window: Int, compact: Bool = false, lossless: Bool = false, at now: Double
    )
        -> [Action]
    {
        var actions: [Action] = []
        peers[recipient] = Peer(
            window: max(1, min(configuration.window, window)), compact: compact, lossless: lossless)
        for index in entries.indices {
            guard var track = entries[index].tracks[recipient], !track.done else { continue }
            if !track.transmitted.isEmpty {
                actions += fail(index, recipient, .recipientRestarted, abort: .cancelled)
            } else {
                track = Track()
                entries[index].tracks[recipient] = track
            }
        }
        return actions + retireFinished()
    }

    /// `recipient` is gone for good: its messages fail with `why`.
    public mutating func remove(_ recipient: Recipient, _ why: String) -> [Action] {
        guard peers.removeValue(forKey: recipient) != nil else { return [] }
        var actions: [Action] = []
        for index in entries.indices where entries[index].tracks[recipient].map({ !$0.done }) ?? false {
            actions += fail(index, recipient, .recipientGone(why), abort: nil)
        }
        for index in entries.indices { entries[index].tracks[recipient] = nil }
        return actions + retireFinished()
    }
}
