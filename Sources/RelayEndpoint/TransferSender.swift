import RelayProtocol

/// The sending half of protocol version 2: a log of messages, each for one or more recipients
/// (the central's one peripheral; the peripheral's centrals, whose notifications all hear the
/// same frames), a window of unacknowledged bytes per recipient (kept to half a second of the
/// delivery rate its acknowledgements show, so bluetoothd's queue stays short), selective repeat of what is
/// missing (gaps the acknowledgements show, and the first unacknowledged bytes when the
/// retransmission timer with back-off runs out), and resume
/// after a link drop from what the receiver says it holds.
///
/// A plain value: the owner queues messages, pulls `nextTransmission` whenever the link can take
/// a value (and sends those stream bytes in a data frame), passes acknowledgements and link
/// changes in, performs the `Action`s and calls `tick` at `nextDeadline`. It never holds message
/// bytes: a transmission names a range of a message stream, which the owner reads.
public struct TransferSender<Recipient: Hashable & Comparable & Sendable>: Sendable {
    /// Window and timing.
    public typealias Configuration = TransferSenderConfiguration

    /// Why a message failed for a recipient.
    public typealias Failure = DeliveryFailure

    /// Stream bytes to send now: `range` of message `number`'s stream, in a data frame for
    /// `transfer`, heard by `recipients` (every recipient it was sent for).
    public struct Transmission: Sendable, Equatable {
        public let number: Int
        public let transfer: TransferID
        public let range: Range<Int>
        public let recipients: [Recipient]
        /// Whether some of these bytes were sent before (to any of the recipients).
        public let isRetransmission: Bool
    }

    /// What the owner does.
    public enum Action: Sendable, Equatable {
        /// The recipient holds the whole message, checked; `seconds` since it was queued.
        case delivered(number: Int, to: Recipient, seconds: Double)
        case failed(number: Int, to: Recipient, Failure)
        /// Sending to `to` goes on after a link drop from `offset` message bytes of `total`.
        case resumed(number: Int, to: Recipient, offset: Int, total: Int)
        /// Message bytes every recipient still receiving holds, of `total`; `rate` in bytes a
        /// second since the previous report. At most 4 a second per message.
        case progress(number: Int, bytes: Int, total: Int, rate: Double)
        /// Tell `to` that the message of `transfer` is given up (an abort frame).
        case abort(to: Recipient, transfer: TransferID, reason: AbortReason)
        /// No recipient needs the message any more: its bytes can go.
        case finished(number: Int)
        /// `by` broke the protocol: nothing of its acknowledgement was taken. The owner cuts it off
        /// (`remove`).
        case breach(by: Recipient, ProtocolBreach)
    }

    /// Counts for `status` and the tests.
    public typealias Counts = TransferSenderCounts

    private struct Flight: Sendable {
        let range: Range<Int>
        let sequence: Int
        let at: Double
        let isRetransmission: Bool
    }

    /// The most ranges of a recipient's holdings kept (the lowest): an honest receiver's holes are
    /// a few losses within the window, and each acknowledgement names at most four ranges.
    static var maximumHeldRanges: Int { 64 }

    private struct Track: Sendable {
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

    private struct Entry: Sendable {
        let number: Int
        let transfer: TransferID
        let headerLength: Int
        let streamLength: Int
        let queuedAt: Double
        var tracks: [Recipient: Track]
        var lastProgress: (at: Double, bytes: Int)?
    }

    private enum LinkState: Sendable, Equatable {
        case linked
        case holding(until: Double)
        case away(since: Double)
    }

    private struct Peer: Sendable {
        var state: LinkState = .linked
        var window: Int
        var smoothedRoundTrip: Double?
        var roundTripVariance = 0.0
        var backoff = 1.0
        /// Stream bytes newly held since `since`, the last at `last`: the delivery-rate sample under way.
        var rateSample: (since: Double, bytes: Int, last: Double)?
        /// Delivery-rate samples of the last `rateMemory` seconds (bytes a second).
        var rateSamples: [(at: Double, rate: Double)] = []
        /// The best rate its acknowledgements showed lately; nil before any. The best, not the
        /// latest: while frames are being lost, acknowledgements stall and a falling rate would
        /// shrink what may be in flight until a burst of losses took one time-out per frame.
        var deliveryRate: Double? { rateSamples.map(\.rate).max() }

        /// What may be in flight to it, for frames of `frameBytes`.
        func flightLimit(_ configuration: Configuration, frameBytes: Int) -> Int {
            let measured = deliveryRate.map {
                max(configuration.minimumFlight * frameBytes, Int($0 * configuration.queueTarget))
            }
            return min(window, measured ?? configuration.initialFlight * frameBytes)
        }
    }

    /// Delivery-rate samples span at least this long (seconds).
    static var rateSampleInterval: Double { 0.25 }
    /// How long a delivery-rate sample counts (seconds).
    static var rateMemory: Double { 10 }

    public let configuration: Configuration
    public private(set) var counts = Counts()
    private var entries: [Entry] = []
    private var peers: [Recipient: Peer] = [:]
    private var nextID: TransferID
    private var sequence = 0

    /// A sender whose first message gets `firstTransfer`.
    public init(configuration: Configuration = Configuration(), firstTransfer: TransferID = TransferID(0)) {
        self.configuration = configuration
        self.nextID = firstTransfer
    }

    /// Messages queued or in progress (for anyone).
    public var pendingCount: Int { entries.count }

    /// Whether nothing is queued or in progress.
    public var isIdle: Bool { entries.isEmpty }

    /// The recipients known (linked, resuming or away within the resume time-out).
    public var recipients: [Recipient] { peers.keys.sorted() }

    /// Whether `recipient` is known and its link is up.
    public func isLinked(_ recipient: Recipient) -> Bool {
        guard let peer = peers[recipient] else { return false }
        if case .away = peer.state { return false }
        return true
    }

    /// The transfer `recipient` gets next: the one in progress for it, else the next one queued.
    public func nextTransfer(for recipient: Recipient) -> TransferID {
        entries.first { $0.tracks[recipient].map { !$0.done } ?? false }?.transfer ?? nextID
    }

    /// Message bytes `recipient` holds of message `number`, and the total; nil when unknown.
    public func progress(of number: Int, for recipient: Recipient) -> (bytes: Int, total: Int)? {
        guard let entry = entries.first(where: { $0.number == number }), let track = entry.tracks[recipient] else {
            return nil
        }
        return (messageBytes(track.held.prefixEnd, entry), entry.streamLength - entry.headerLength)
    }

    // MARK: Messages

    /// Queues message `number` (a stream of `streamLength` bytes, the first `headerLength` of them
    /// its header) for `recipients`; returns its transfer id.
    @discardableResult
    public mutating func enqueue(
        number: Int, headerLength: Int, streamLength: Int, for recipients: [Recipient], at now: Double
    ) -> TransferID {
        let transfer = nextID
        nextID = nextID.next
        var tracks: [Recipient: Track] = [:]
        for recipient in recipients where peers[recipient] != nil { tracks[recipient] = Track() }
        entries.append(
            Entry(
                number: number, transfer: transfer, headerLength: headerLength, streamLength: streamLength,
                queuedAt: now, tracks: tracks))
        return transfer
    }

    /// Gives up message `number` for everyone (cancelled).
    public mutating func cancel(number: Int) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.number == number }) else { return [] }
        var actions: [Action] = []
        for recipient in entries[index].tracks.keys.sorted() where !(entries[index].tracks[recipient]!.done) {
            actions += fail(index, recipient, .cancelled, abort: .cancelled)
        }
        return actions + retireFinished()
    }

    /// The next stream bytes to send, at most `maxBytes`; nil when nothing may go now (all sent
    /// and waiting for acknowledgements, windows full, links down).
    public mutating func nextTransmission(at now: Double, maxBytes: Int) -> Transmission? {
        precondition(maxBytes > 0)
        var current: [Recipient: Int] = [:]
        for (index, entry) in entries.enumerated() {
            for (recipient, track) in entry.tracks where !track.done && current[recipient] == nil {
                current[recipient] = index
            }
        }
        for index in entries.indices {
            let entry = entries[index]
            let ready = entry.tracks.keys.filter { current[$0] == index && peers[$0]?.state == .linked }.sorted()
            var best: Range<Int>?
            for recipient in ready {
                let track = entry.tracks[recipient]!
                if track.probe {
                    let start = max(0, entry.streamLength - maxBytes)
                    entries[index].tracks[recipient]!.probe = false
                    return transmit(start..<entry.streamLength, of: index, to: [recipient], at: now, probe: true)
                }
                var covered = track.held
                covered.formUnion(track.sent)
                // Never past what the receiver can hold beyond its first gap.
                let window = peers[recipient]!.window
                let limit = min(entry.streamLength, track.held.prefixEnd + window)
                guard let gap = covered.firstMissing(in: 0..<limit) else { continue }
                let range = gap.lowerBound..<(gap.lowerBound + min(maxBytes, gap.count))
                let inFlight = track.unheldInFlight()
                let flight = peers[recipient]!.flightLimit(configuration, frameBytes: maxBytes)
                // A repair (bytes sent before and found lost) always may go: what it replaces is
                // not in flight any more, and holding it back behind the limit stalls the
                // transfer for as long as the back-off runs.
                let repair = track.transmitted.overlap(with: range) > 0
                guard repair || inFlight == 0 || inFlight + range.count <= flight else { continue }
                if best == nil || range.lowerBound < best!.lowerBound { best = range }
            }
            guard let range = best else { continue }
            return transmit(range, of: index, to: ready, at: now)
        }
        return nil
    }

    private mutating func transmit(
        _ range: Range<Int>, of index: Int, to ready: [Recipient], at now: Double, probe: Bool = false
    ) -> Transmission {
        sequence += 1
        var heard: [Recipient] = []
        var again = false
        for recipient in ready {
            var track = entries[index].tracks[recipient]!
            guard probe || !track.held.contains(range) else { continue }
            track.lastSentAt = now
            let repeated = track.transmitted.overlap(with: range) > 0
            again = again || repeated
            // The witness sent again (to repair it, or heard in a frame for another recipient):
            // once held, it no longer tells which transmission arrived.
            if let witness = track.timeoutWitness, witness.overlaps(range) { track.timeoutWitness = nil }
            track.flights.append(Flight(range: range, sequence: sequence, at: now, isRetransmission: repeated))
            track.sent.insert(range)
            track.transmitted.insert(range)
            if track.lastProgressAt == nil { track.lastProgressAt = now }
            entries[index].tracks[recipient] = track
            heard.append(recipient)
        }
        counts.sentBytes += range.count
        if again { counts.resentBytes += range.count }
        let entry = entries[index]
        return Transmission(
            number: entry.number, transfer: entry.transfer, range: range, recipients: heard, isRetransmission: again)
    }

    // MARK: Acknowledgements

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

    // MARK: Links

    /// `recipient` is linked (a hello or welcome came): a new recipient, or one coming back. One
    /// coming back first waits a moment for its receiver's account (`resumeHold`).
    public mutating func linkUp(_ recipient: Recipient, window: Int, at now: Double) {
        let window = max(1, min(configuration.window, window))
        guard var peer = peers[recipient] else {
            peers[recipient] = Peer(window: window)
            return
        }
        peer.window = window
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

    /// `recipient`'s link went down: what it has not acknowledged counts as not sent.
    public mutating func linkDown(_ recipient: Recipient, at now: Double) {
        guard peers[recipient] != nil else { return }
        peers[recipient]!.state = .away(since: now)
        for index in entries.indices {
            guard var track = entries[index].tracks[recipient], !track.done else { continue }
            track.flights = []
            track.sent = track.held
            entries[index].tracks[recipient] = track
        }
    }

    /// `recipient` is a new process under the same name: messages already started for it fail
    /// (the new one holds nothing of them; each gets an abort so it skips them), the rest go to it.
    public mutating func restarted(_ recipient: Recipient, window: Int, at now: Double) -> [Action] {
        var actions: [Action] = []
        peers[recipient] = Peer(window: max(1, min(configuration.window, window)))
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

    // MARK: Time

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

    // MARK: Inside

    private func currentIndex(of recipient: Recipient) -> Int? {
        entries.firstIndex { $0.tracks[recipient].map { !$0.done } ?? false }
    }

    private func messageBytes(_ streamBytes: Int, _ entry: Entry) -> Int { max(0, streamBytes - entry.headerLength) }

    private mutating func releaseHold(_ recipient: Recipient, at now: Double) -> [Action] {
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

    private mutating func fail(
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
    private mutating func retireFinished() -> [Action] {
        var actions: [Action] = []
        entries.removeAll { entry in
            guard entry.tracks.values.allSatisfy(\.done) else { return false }
            actions.append(.finished(number: entry.number))
            return true
        }
        return actions
    }

    private mutating func measured(_ sample: Double, for recipient: Recipient) {
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

    private mutating func sampleRate(_ bytes: Int, for recipient: Recipient, at now: Double) {
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

    private func retransmissionTimeout(_ recipient: Recipient) -> Double {
        guard let peer = peers[recipient] else { return configuration.initialRetransmissionTimeout }
        let base =
            peer.smoothedRoundTrip.map { $0 + 4 * peer.roundTripVariance } ?? configuration.initialRetransmissionTimeout
        let bounded = min(
            max(base, configuration.minimumRetransmissionTimeout), configuration.maximumRetransmissionTimeout)
        return min(bounded * peer.backoff, configuration.maximumRetransmissionTimeout * 4)
    }

    private mutating func progressIfDue(_ index: Int, at now: Double) -> [Action] {
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
