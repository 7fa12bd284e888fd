import RelayProtocol

/// What the sender keeps per message and per recipient: what is in flight, what the receiver
/// holds, the link, the round trip and the delivery rate; and the helpers that change them.
extension TransferSender {
    struct Flight: Sendable {
        let range: Range<Int>
        let sequence: Int
        let at: Double
        let isRetransmission: Bool
    }

    /// The most ranges of a recipient's holdings kept (the lowest): an honest receiver's holes are
    /// a few losses within the window, and each acknowledgement names at most four ranges.
    static var maximumHeldRanges: Int { 64 }

    struct Track: Sendable {
        var held = ByteRanges()
        /// The most bytes `held` ever counted.
        var mostHeld = 0
        var sent = ByteRanges()
        var transmitted = ByteRanges()
        var flights: [Flight] = []
        var highestHeldSequence = -1
        var lastProgressAt: Double?
        var lastSentAt: Double?
        /// Everything is acknowledged but not how it ended: send the last bytes again, which the
        /// receiver answers with its final acknowledgement.
        var probe = false
        var done = false
        /// A resume to report once sending goes on.
        var resumeToReport = false
        /// An acknowledgement of this message came from the recipient on this link: it has the
        /// message in progress, so compact data frames (which name no transfer) reach it.
        var acknowledgedOnLink = false
        /// When the retransmission timer last ran out with bytes in flight: once the bytes it
        /// sent again are acknowledged, what was in flight before it is taken as lost too.
        var timedOutAt: Double?
        /// The last byte of the frame the timer ran out on, kept out of the bytes sent again: held,
        /// it shows that the first transmission arrived after all (a delay, not a loss), so an
        /// acknowledgement of the bytes sent again says nothing of what was in flight behind it.
        var timeoutWitness: Range<Int>?

        func unheldInFlight() -> Int {
            flights.reduce(0) { $0 + $1.range.count - held.overlap(with: $1.range) }
        }
    }

    struct Entry: Sendable {
        let number: Int
        let transfer: TransferID
        let headerLength: Int
        let streamLength: Int
        let queuedAt: Double
        var tracks: [Recipient: Track]
        var lastProgress: (at: Double, bytes: Int)?
    }

    enum LinkState: Sendable, Equatable {
        case linked
        case holding(until: Double)
        case away(since: Double)
    }

    struct Peer: Sendable {
        var state: LinkState = .linked
        var window: Int
        var smoothedRoundTrip: Double?
        var roundTripVariance = 0.0
        var backoff = 1.0
        /// Stream bytes newly held since `since`, the last at `last`: the delivery-rate sample under way.
        var rateSample: (since: Double, bytes: Int, last: Double)?
        /// Delivery-rate samples of the last `rateMemory` seconds (bytes a second).
        var rateSamples: [(at: Double, rate: Double)] = []
        /// When a data frame of its own last came in from it (it sends to us too).
        var dataHeardAt: Double?
        /// Whether it takes compact data frames (both said version 3 in the handshake).
        var compact = false
        /// Whether its carrier loses nothing while up (`losslessRetransmissionTimeout`).
        var lossless = false
        /// The best rate its acknowledgements showed lately; nil before any. The best, not the
        /// latest: while frames are being lost, acknowledgements stall and a falling rate would
        /// shrink what may be in flight until a burst of losses took one time-out per frame.
        var deliveryRate: Double? { rateSamples.map(\.rate).max() }

        /// What may be in flight to it, for frames of `frameBytes`: `queueTarget` seconds of its
        /// delivery rate, and while it sends to us too, enough to cover `twoWayGain` round trips
        /// (at most `twoWayLimit` seconds of its rate). Our acknowledgements then wait behind its
        /// data and its behind ours: a round trip holds both queues, and a flight of half a second
        /// of rate can no longer show a higher rate than the one it was cut for, so the direction
        /// that fell behind would stay behind for as long as the other runs.
        func flightLimit(_ configuration: Configuration, frameBytes: Int, at now: Double) -> Int {
            let measured = deliveryRate.map { rate in
                var seconds = configuration.queueTarget
                if let heard = dataHeardAt, now - heard < configuration.twoWayMemory, let roundTrip = smoothedRoundTrip
                {
                    seconds = min(configuration.twoWayLimit, max(seconds, configuration.twoWayGain * roundTrip))
                }
                return max(configuration.minimumFlight * frameBytes, Int(rate * seconds))
            }
            return min(window, measured ?? configuration.initialFlight * frameBytes)
        }
    }

    func currentIndex(of recipient: Recipient) -> Int? {
        entries.firstIndex { $0.tracks[recipient].map { !$0.done } ?? false }
    }

    func messageBytes(_ streamBytes: Int, _ entry: Entry) -> Int { max(0, streamBytes - entry.headerLength) }

    mutating func releaseHold(_ recipient: Recipient, at now: Double) -> [Action] {
        guard case .holding = peers[recipient]?.state else { return [] }
        peers[recipient]!.state = .linked
        var actions: [Action] = []
        for index in entries.indices {
            guard var track = entries[index].tracks[recipient], !track.done, track.resumeToReport else { continue }
            track.resumeToReport = false
            // Sending goes on from the first byte the receiver lacks.
            track.sent = track.held
            track.lastProgressAt = now
            entries[index].tracks[recipient] = track
            let entry = entries[index]
            actions.append(
                .resumed(
                    number: entry.number, to: recipient, offset: messageBytes(track.held.prefixEnd, entry),
                    total: entry.streamLength - entry.headerLength))
        }
        return actions
    }

    mutating func fail(
        _ index: Int, _ recipient: Recipient, _ failure: Failure, abort: AbortReason?
    )
        -> [Action]
    {
        guard var track = entries[index].tracks[recipient], !track.done else { return [] }
        track.done = true
        track.flights = []
        entries[index].tracks[recipient] = track
        var actions: [Action] = [.failed(number: entries[index].number, to: recipient, failure)]
        if let abort, isLinked(recipient) {
            actions.append(.abort(to: recipient, transfer: entries[index].transfer, reason: abort))
        }
        return actions
    }

    /// Drops entries every recipient is done with, in order.
    mutating func retireFinished() -> [Action] {
        var actions: [Action] = []
        entries.removeAll { entry in
            guard entry.tracks.values.allSatisfy(\.done) else { return false }
            actions.append(.finished(number: entry.number))
            return true
        }
        return actions
    }

    mutating func measured(_ sample: Double, for recipient: Recipient) {
        guard var peer = peers[recipient] else { return }
        if let smoothed = peer.smoothedRoundTrip {
            peer.roundTripVariance = 0.75 * peer.roundTripVariance + 0.25 * abs(smoothed - sample)
            peer.smoothedRoundTrip = 0.875 * smoothed + 0.125 * sample
        } else {
            peer.smoothedRoundTrip = sample
            peer.roundTripVariance = sample / 2
        }
        peer.backoff = 1
        peers[recipient] = peer
    }

    mutating func sampleRate(_ bytes: Int, for recipient: Recipient, at now: Double) {
        guard var peer = peers[recipient] else { return }
        // This acknowledgement starts a sample when none is under way, or after a pause (nothing
        // was sent: an idle link says nothing of its rate).
        guard let sample = peer.rateSample, now - sample.last < Self.rateSampleInterval * 4 else {
            peer.rateSample = (now, 0, now)
            peers[recipient] = peer
            return
        }
        let total = sample.bytes + bytes
        let elapsed = now - sample.since
        if elapsed >= Self.rateSampleInterval {
            peer.rateSamples.removeAll { $0.at < now - Self.rateMemory }
            peer.rateSamples.append((now, Double(total) / elapsed))
            peer.rateSample = (now, 0, now)
        } else {
            peer.rateSample = (sample.since, total, now)
        }
        peers[recipient] = peer
    }

    func retransmissionTimeout(_ recipient: Recipient) -> Double {
        guard let peer = peers[recipient] else { return configuration.initialRetransmissionTimeout }
        let base =
            peer.smoothedRoundTrip.map { $0 + 4 * peer.roundTripVariance } ?? configuration.initialRetransmissionTimeout
        let floor =
            peer.lossless ? configuration.losslessRetransmissionTimeout : configuration.minimumRetransmissionTimeout
        let ceiling = max(configuration.maximumRetransmissionTimeout, floor)
        let bounded = min(max(base, floor), ceiling)
        return min(bounded * peer.backoff, ceiling * 4)
    }
}
