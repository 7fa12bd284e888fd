import RelayApp
import RelayEndpoint
import RelayProtocol

/// relay-peripheral's notifications: what is queued (counters and version-1 frames, counters
/// for the sessions), the counter and the numbers of messages, and where handing values to
/// bluetoothd stands, one at a time (the L2CAP channels' own queues are in `PeripheralLane`). Part of `PeripheralSession` (see `PeripheralSession+Sending`).
struct PeripheralSending {
    /// Values waiting to be notified; a message's tag is unused (its report is made when sent).
    var outbox = Outbox<Int>()
    var chunker = Chunker(carrier: .notification)
    /// Counters for the sessions, each with the `notified` to report once it is handed over: at
    /// most `maximumSessionCounters` (an echo of centrals that write faster than notifications
    /// leave keeps the newest).
    private(set) var sessionCounters: [(Counter, PeripheralEvent?)] = []
    /// Counters waiting for the sessions at most.
    static let maximumSessionCounters = 64
    /// The counter `notify` sends next.
    private(set) var nextCounter = Counter(0)
    /// The last counter handed to bluetoothd (what a read of the notify characteristic returns).
    private(set) var lastNotified: Counter?
    /// The number the next message gets (from 1; `id` in the sender's events).
    private(set) var nextMessageNumber = 1
    /// The value handed to bluetoothd as a notification, waiting for its outcome.
    private(set) var inFlight: OutgoingValue?
    /// A value the socket refused (full): offered again on `.carrierWritable`.
    private(set) var blocked: OutgoingValue?
    /// Waiting for `.timerFired(.sendPause)` between unpaced bursts.
    private(set) var paused = false
    /// Values handed over in the current unpaced burst.
    private(set) var burst = 0

    /// The counter `notify` sends: `value`, or the next one; counting goes on after it.
    mutating func counterToNotify(_ value: UInt32?) -> Counter {
        let counter = value.map(Counter.init) ?? nextCounter
        nextCounter = counter.next
        return counter
    }

    /// The number of the next message `send` queues.
    mutating func numberNextMessage() -> Int {
        defer { nextMessageNumber += 1 }
        return nextMessageNumber
    }

    /// Queues `counter` for the sessions with the `notified` to report once it is handed over;
    /// at most `maximumSessionCounters` wait: the oldest goes.
    mutating func queueForSessions(_ counter: Counter, then report: PeripheralEvent?) {
        if sessionCounters.count >= Self.maximumSessionCounters { sessionCounters.removeFirst() }
        sessionCounters.append((counter, report))
    }

    /// The next counter for the sessions, if one waits.
    mutating func takeSessionCounter() -> (Counter, PeripheralEvent?)? {
        sessionCounters.isEmpty ? nil : sessionCounters.removeFirst()
    }

    /// The sessions are gone: their counters too.
    mutating func dropSessionCounters() {
        sessionCounters = []
    }

    /// The value to offer next that the full socket refused, if any (offered now: no longer held).
    mutating func takeBlocked() -> OutgoingValue? {
        defer { blocked = nil }
        return blocked
    }

    /// `value` is handed to bluetoothd: it waits for its outcome.
    mutating func handOver(_ value: OutgoingValue) {
        inFlight = value
    }

    /// The outcome of the value in flight came: the value (nil: none was in flight).
    mutating func outcomeHeard() -> OutgoingValue? {
        defer { inFlight = nil }
        return inFlight
    }

    /// The full socket refused `value`: it is offered again first when the socket can take more.
    mutating func hold(_ value: OutgoingValue) {
        blocked = value
    }

    /// `value` went as a notification: its counter is the last notified; true when an unpaced
    /// burst (`PropertiesChanged` signals) is full and the next values wait for the pause.
    mutating func notified(_ value: OutgoingValue, paced: Bool, burstLimit: Int, moreWaiting: Bool) -> Bool {
        if let counter = value.counter { lastNotified = counter }
        burst += 1
        guard !paced, burst >= burstLimit, moreWaiting else { return false }
        burst = 0
        paused = true
        return true
    }

    /// Nothing more to hand over now: the next burst starts afresh.
    mutating func endBurst() {
        burst = 0
    }

    /// The pause between bursts is over: true when there was one.
    mutating func pauseOver() -> Bool {
        defer { paused = false }
        return paused
    }

    /// The link that would carry the value on its way is gone: nothing is on its way any more.
    mutating func forgetHandOver() {
        inFlight = nil
        blocked = nil
        paused = false
        burst = 0
    }
}
