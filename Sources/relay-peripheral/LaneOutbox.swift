/// What waits to go on one central's L2CAP channel, and how long the channel has been full lately.
/// Part of `PeripheralLane`; no I/O.
///
/// Each channel has its own: a channel that takes nothing (a stopped process, a stranger granting
/// credits one value at a time, a central starved by a radio shared with fourteen others) holds
/// back only what is queued for it, never another channel, a counter or an acknowledgement.
/// Whether a full channel stalled is for the session to judge: time full while other channels
/// took bytes is the radio's, not the channel's (`excuse(until:)`).
/// Values are queued whole, cut into the channel's service data units (a lane value may span
/// several: the reader's `LaneDeframer` joins them), and the bytes kept for a channel are bounded:
/// what comes beyond `limit` is not queued for it (protocol 2 repairs a frame that did not arrive).
struct LaneOutbox: Sendable, Equatable {
    /// Bytes kept for one channel at least: twice the window a relay-central announces by
    /// default, so an honest central's flight never reaches it.
    static let limit = 128 * 1024
    /// A channel full for this long, in all, within the last `stallWindow` seconds stalled: it
    /// took too little of what waited for it to be worth the memory (a dead peer is closed after
    /// that long). Time full while the radio was busy with other channels does not count: with
    /// fifteen centrals sharing the controller's buffers, a 64 KiB broadcast keeps some channels
    /// waiting for half a minute without a unit (seen in the test bed).
    static let stallSeconds = 20.0
    /// Seconds over which time full is counted (a sliding window: granting credits for one value
    /// now and then does not restart it).
    static let stallWindow = 30.0

    /// The largest service data unit the channel takes (its send MTU).
    let unitSize: Int
    /// Bytes kept for this channel: `limit`, or twice the window when `--window` is larger (what
    /// comes beyond is not queued, and on the lane waits for its 20 s repair).
    let bound: Int
    private var units: [[UInt8]] = []
    private var head = 0
    /// Bytes queued and not taken yet.
    private(set) var bytes = 0
    /// The units handed to the socket and not answered yet (`.send` to `.sendFinished`).
    private(set) var handedOver = 0
    /// Since when the socket has been full (nil: it takes what it is given).
    private(set) var fullSince: Double?
    /// Stretches the socket was full, ended, that may still count in the window.
    private var fullStretches: [ClosedRange<Double>] = []
    /// When the socket last took a unit and refused the next: the channel moved at the pace its
    /// link was given, not its peer's (nil: never). Channels that all do this share a radio.
    private(set) var lastTakenWhileFull: Double?

    init(unitSize: Int, window: Int = 0) {
        precondition(unitSize > 0)
        self.unitSize = unitSize
        bound = max(Self.limit, 2 * window)
    }

    /// The units not taken yet, the ones handed over first.
    var waiting: ArraySlice<[UInt8]> { units[head...] }

    /// Whether units wait that the socket has not been handed.
    var hasUnsent: Bool { units.count - head > handedOver }

    /// Queues a lane-framed value; false when the channel already holds `bound` bytes, or when the
    /// same value still waits here unsent (a repair sent again while the first copy has not left:
    /// a second copy would only take the radio twice).
    mutating func add(_ framed: [UInt8]) -> Bool {
        guard bytes < bound else { return false }
        var cut: [[UInt8]] = []
        var start = 0
        while start < framed.count {
            let end = min(framed.count, start + unitSize)
            cut.append(Array(framed[start..<end]))
            start = end
        }
        guard !isWaitingUnsent(cut) else { return false }
        units += cut
        bytes += framed.count
        return true
    }

    /// Whether `cut` (a value's units) is waiting, not yet handed to the socket.
    private func isWaitingUnsent(_ cut: [[UInt8]]) -> Bool {
        let first = head + handedOver
        guard let leading = cut.first, units.count - first >= cut.count else { return false }
        for index in first...(units.count - cut.count) where units[index] == leading {
            if units[index..<(index + cut.count)].elementsEqual(cut) { return true }
        }
        return false
    }

    /// The units to hand to the socket now (nil: none, or the socket is full or still has some).
    mutating func takeUnsent() -> [[UInt8]]? {
        guard handedOver == 0, fullSince == nil, hasUnsent else { return nil }
        let batch = Array(units[head...])
        handedOver = batch.count
        return batch
    }

    /// The socket took the first `count` units handed over; `full`: it refused the next one.
    mutating func took(_ count: Int, full: Bool, at now: Double) {
        let taken = min(count, handedOver, units.count - head)
        for index in head..<(head + taken) { bytes -= units[index].count }
        head += taken
        if taken > 0, full { lastTakenWhileFull = now }
        handedOver = 0
        if head > 64, head * 2 > units.count {
            units.removeFirst(head)
            head = 0
        }
        if full {
            if fullSince == nil { fullSince = now }
        } else {
            writable(at: now)
        }
    }

    /// The socket can take more.
    mutating func writable(at now: Double) {
        guard let since = fullSince else { return }
        fullSince = nil
        fullStretches.append(since...max(since, now))
        fullStretches.removeAll { $0.upperBound < now - Self.stallWindow }
    }

    /// Forgets the time full until `time`: it was spent waiting for a radio busy with other
    /// channels (the session judges that), not on this channel's peer.
    mutating func excuse(until time: Double) {
        fullStretches = fullStretches.compactMap {
            $0.upperBound > time ? max($0.lowerBound, time)...$0.upperBound : nil
        }
        if let since = fullSince { fullSince = max(since, time) }
    }

    /// Seconds the socket was full within the `stallWindow` seconds before `now`.
    func fullSeconds(at now: Double) -> Double {
        let start = now - Self.stallWindow
        var total = 0.0
        for stretch in fullStretches + (fullSince.map { [$0...max($0, now)] } ?? []) {
            total += max(0, stretch.upperBound - max(stretch.lowerBound, start))
        }
        return total
    }

    /// Whether the channel counts as stalled at `now` (see `stallSeconds`).
    func isStalled(at now: Double) -> Bool {
        fullSeconds(at: now) >= Self.stallSeconds - 1e-6
    }

    /// When to look again whether it stalled, while it is full (nil: it is not): the earliest it
    /// could be (not before half a second from now).
    func stallDeadline(at now: Double) -> Double? {
        guard fullSince != nil else { return nil }
        return now + max(0.5, Self.stallSeconds - fullSeconds(at: now))
    }
}
