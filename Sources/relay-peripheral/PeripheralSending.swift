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
    var sessionCounters: [(Counter, PeripheralEvent?)] = []
    /// Counters waiting for the sessions at most.
    static let maximumSessionCounters = 64
    /// The counter `notify` sends next.
    var nextCounter = Counter(0)
    /// The last counter handed to bluetoothd (what a read of the notify characteristic returns).
    var lastNotified: Counter?
    /// The number the next message gets (from 1; `id` in the sender's events).
    var nextMessageNumber = 1
    /// The value handed over with `.notify`, waiting for its outcome.
    var inFlight: OutgoingValue?
    /// A value the socket refused (full): offered again on `.notifyWritable`.
    var blocked: OutgoingValue?
    /// Waiting for `.timerFired(.sendPause)` between unpaced bursts.
    var paused = false
    /// Values handed over in the current unpaced burst.
    var burst = 0

    /// The link that would carry the value on its way is gone: nothing is on its way any more.
    mutating func forgetHandOver() {
        inFlight = nil
        blocked = nil
        paused = false
        burst = 0
    }
}
