import RelayProtocol
import Shared

/// What the peripheral knows about one connected central.
struct CentralState {
    let address: BluetoothAddress
    /// The link's ATT MTU, once a write, read or acquired socket told it.
    var mtu: MTU?
    /// Whether this central is known to have enabled notifications.
    var subscribed = false
    /// Rebuilds the messages this central writes; one per central.
    var reassembler: Reassembler
    /// The last value this central wrote.
    var lastWritten: [UInt8]?
    var countersReceived = 0
    var messagesReceived = 0
    var errorLimiter = ErrorRateLimiter()
    /// Monotonic time (seconds) of the last frame while a message is incomplete; nil when none is.
    var partialSince: Double?

    init(address: BluetoothAddress, maxMessage: Int) {
        self.address = address
        self.reassembler = Reassembler(maxMessageLength: maxMessage)
    }
}

/// Lets through at most `burst` error lines per `window` seconds and counts the rest, so a
/// hostile central writing garbage at full speed cannot flood the terminal.
struct ErrorRateLimiter {
    static let burst = 5
    static let window = 1.0

    private var windowStart = -Double.infinity
    private var shown = 0
    /// Errors swallowed in the current window.
    private(set) var suppressed = 0

    /// Whether an error at `time` may be shown; when a new window opens, also how many were
    /// suppressed in the previous one (to report once).
    mutating func admit(at time: Double) -> (show: Bool, previouslySuppressed: Int) {
        var previously = 0
        if time - windowStart >= Self.window {
            previously = suppressed
            windowStart = time
            shown = 0
            suppressed = 0
        }
        if shown < Self.burst {
            shown += 1
            return (true, previously)
        }
        suppressed += 1
        return (false, previously)
    }
}
