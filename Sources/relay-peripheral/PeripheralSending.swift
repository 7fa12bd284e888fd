import RelayApp
import RelayEndpoint
import RelayProtocol

/// How one of relay-peripheral's values travels: notified on a characteristic through
/// bluetoothd (one value at a time, every subscribed central hears it), or queued on centrals'
/// L2CAP channels (each channel's `LaneOutbox` at its own pace). Chosen per value: protocol 2's
/// frames go on the channels of the sessions they are for while every linked session has one
/// (`laneRoute`); counters, version-1 frames and UART text are always notified.
enum PeripheralCarrier: Equatable, Sendable {
    case notification(RelayCharacteristic)
    /// The channels, the route the value was cut for.
    case lanes([LaneID])

    /// How much of an MTU a value may take on this carrier.
    var valueCarrier: ValueCarrier {
        switch self {
        case .notification: .notification
        case .lanes: .lane
        }
    }
}

/// One value on its way, and what to report once it is handed over.
struct OutgoingValue: Equatable, Sendable {
    let bytes: [UInt8]
    let counter: Counter?
    /// `notified` after a counter, `sent` after a message's last frame, else nil.
    let completion: PeripheralEvent?
    /// How it travels.
    var carrier = PeripheralCarrier.notification(.notify)
    /// More to report once it is handed over (`unconfirmed` per version-1 central).
    var alsoReport: [PeripheralEvent] = []
    /// A protocol-2 frame with its message's last byte: the message is `sent` once it is handed over.
    var final: FinalFrame? = nil
}

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

/// What bluetoothd says of the notifications' subscribers as a whole (each central's own
/// subscriptions are in `ConnectedCentral`). Part of `PeripheralSession`.
struct PeripheralSubscriptions: Equatable, Sendable {
    /// bluetoothd has notifications enabled on the notify characteristic.
    var notifying = false
    /// MTU from the latest acquired notification socket (applies to all subscribers).
    var notifyLinkMTU: MTU?
    /// bluetoothd has notifications enabled on the session characteristic.
    var sessionNotifying = false
    /// MTU from the latest acquired session notification socket.
    var sessionLinkMTU: MTU?
}
