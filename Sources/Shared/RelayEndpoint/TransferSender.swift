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
        /// Whether they go in a compact data frame (`CompactDataFrame`): then the one recipient
        /// agreed to them, acknowledged this message on this link, and none of the bytes went before.
        public let compact: Bool
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

    /// Delivery-rate samples span at least this long (seconds).
    static var rateSampleInterval: Double { 0.25 }
    /// How long a delivery-rate sample counts (seconds).
    static var rateMemory: Double { 10 }

    public let configuration: Configuration
    public internal(set) var counts = Counts()
    var entries: [Entry] = []
    var peers: [Recipient: Peer] = [:]
    var nextID: TransferID
    var sequence = 0

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

    /// The next stream bytes to send, at most `maxBytes`, or at most `compactBytes` in a compact
    /// frame where one may go (nil: none may); nil when nothing may go now (all sent and waiting
    /// for acknowledgements, windows full, links down).
    public mutating func nextTransmission(at now: Double, maxBytes: Int, compactBytes: Int? = nil) -> Transmission? {
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
            var compact = false
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
                var range = gap.lowerBound..<(gap.lowerBound + min(maxBytes, gap.count))
                var frameBytes = maxBytes
                var inCompact = false
                if ready.count == 1, let room = compactBytes, peers[recipient]!.compact, track.acknowledgedOnLink,
                    let cut = Self.compactRange(gap, room: room, track: track)
                {
                    range = cut
                    frameBytes = room
                    inCompact = true
                }
                let inFlight = track.unheldInFlight()
                let flight = peers[recipient]!.flightLimit(configuration, frameBytes: frameBytes, at: now)
                // A repair (bytes sent before and found lost) always may go: what it replaces is
                // not in flight any more, and holding it back behind the limit stalls the
                // transfer for as long as the back-off runs.
                let repair = track.transmitted.overlap(with: range) > 0
                guard repair || inFlight == 0 || inFlight + range.count <= flight else { continue }
                if best == nil || range.lowerBound < best!.lowerBound {
                    best = range
                    compact = inCompact
                }
            }
            guard let range = best else { continue }
            return transmit(range, of: index, to: ready, at: now, compact: compact)
        }
        return nil
    }

    /// The part of `gap` a compact frame of at most `room` bytes may carry to a receiver `track`
    /// describes, if any: bytes never sent before (a compact frame of bytes the receiver may have
    /// finished with would go unanswered), within `CompactDataFrame.span` of its first missing
    /// byte, not 2 of them (a 4-byte value is a counter).
    static func compactRange(_ gap: Range<Int>, room: Int, track: Track) -> Range<Int>? {
        let end = min(gap.upperBound, gap.lowerBound + room, track.held.prefixEnd + CompactDataFrame.span)
        guard end > gap.lowerBound else { return nil }
        var range = gap.lowerBound..<end
        if range.count == 2 { range = range.lowerBound..<(range.lowerBound + 1) }
        guard CompactDataFrame.canCarry(range.count), track.transmitted.overlap(with: range) == 0 else { return nil }
        return range
    }

    /// A data frame of `recipient`'s own came in: it sends to us too, and what may be in flight
    /// to it covers the round trip while it does (`Peer.flightLimit`).
    public mutating func heardData(from recipient: Recipient, at now: Double) {
        peers[recipient]?.dataHeardAt = now
    }

    mutating func transmit(
        _ range: Range<Int>, of index: Int, to ready: [Recipient], at now: Double, probe: Bool = false,
        compact: Bool = false
    ) -> Transmission {
        sequence += 1
        var heard: [Recipient] = []
        var again = false
        for recipient in ready {
            var track = entries[index].tracks[recipient]!
            guard probe || !track.held.contains(range) else { continue }
            // Already on its way to a recipient whose carrier loses nothing: a repair for the
            // others is not its (on a notification every subscriber hears it anyway; on a lane it
            // would take that channel's air for nothing).
            if !probe, peers[recipient]?.lossless == true, track.sent.contains(range) { continue }
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
            number: entry.number, transfer: entry.transfer, range: range, recipients: heard, isRetransmission: again,
            compact: compact && !again)
    }
}
