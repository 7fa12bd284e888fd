#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A single-threaded event loop over `poll(2)`.
///
/// It is the one owner of every file descriptor the programs wait on (the D-Bus
/// connection, the terminal, `AcquireWrite`/`AcquireNotify` sockets) and of every
/// timer. Nothing sleeps to poll: the loop blocks in `poll(2)` until an fd is ready
/// or the nearest timer is due, then runs the handlers on the calling thread.
///
/// The loop is not thread-safe by design; create it and use it on one thread.
public final class EventLoop {
    /// What a watched descriptor is waiting for, and what it got.
    public struct Readiness: OptionSet, Sendable, CustomStringConvertible {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: Int16(POLLIN))
        public static let writable = Readiness(rawValue: Int16(POLLOUT))
        /// The peer hung up or the descriptor failed (reported, never requested).
        public static let hangup = Readiness(rawValue: Int16(POLLHUP | POLLERR | POLLNVAL))

        public var description: String {
            var parts: [String] = []
            if contains(.readable) { parts.append("readable") }
            if contains(.writable) { parts.append("writable") }
            if !intersection(.hangup).isEmpty { parts.append("hangup") }
            return "[" + parts.joined(separator: ",") + "]"
        }
    }

    /// Identifies a registered watch or timer so it can be changed or removed.
    public struct Token: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct Watch {
        var fd: Int32
        var interest: Readiness
        var handler: (Readiness) -> Void
    }

    private struct Timer {
        var deadline: Double
        var handler: () -> Void
    }

    private var nextID = 0
    private var watches: [Int: Watch] = [:]
    private var timers: [Int: Timer] = [:]
    private var deferred: [() -> Void] = []
    private var stopRequested = false

    /// How many turns (`runOnce`) the loop has made: each is one `poll(2)`. For tests and
    /// diagnostics (work done per wake-up), not for control flow.
    public private(set) var turns = 0

    public init() {}

    /// Seconds on the monotonic clock.
    public static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Seconds on the monotonic clock, as the loop sees them.
    public var now: Double { Self.monotonicNow() }

    private func makeID() -> Int {
        nextID += 1
        return nextID
    }

    /// Calls `handler` whenever `fd` is ready for `interest` (or hung up).
    /// The descriptor stays owned by the caller; remove the watch before closing it.
    @discardableResult
    public func watch(fd: Int32, for interest: Readiness, handler: @escaping (Readiness) -> Void) -> Token {
        let id = makeID()
        watches[id] = Watch(fd: fd, interest: interest, handler: handler)
        return Token(id: id)
    }

    /// Changes what a watch waits for; an empty set pauses it.
    public func update(_ token: Token, interest: Readiness) {
        watches[token.id]?.interest = interest
    }

    /// The interest currently registered for a watch, if it exists.
    public func interest(of token: Token) -> Readiness? {
        watches[token.id]?.interest
    }

    /// Runs `handler` once, `seconds` from now (0 means on the next turn of the loop).
    @discardableResult
    public func schedule(after seconds: Double, _ handler: @escaping () -> Void) -> Token {
        let id = makeID()
        timers[id] = Timer(deadline: now + max(0, seconds), handler: handler)
        return Token(id: id)
    }

    /// Runs `handler` on the next turn of the loop, before waiting again.
    public func post(_ handler: @escaping () -> Void) {
        deferred.append(handler)
    }

    /// Removes a watch or a pending timer. Removing twice is harmless.
    public func cancel(_ token: Token) {
        watches[token.id] = nil
        timers[token.id] = nil
    }

    /// Whether a timer or watch is still registered.
    public func isActive(_ token: Token) -> Bool {
        watches[token.id] != nil || timers[token.id] != nil
    }

    /// Makes the innermost `run` return after the current turn.
    public func stop() { stopRequested = true }

    /// Runs until `stop()` is called.
    public func run() {
        stopRequested = false
        while !stopRequested { runOnce(timeout: nil) }
        stopRequested = false
    }

    /// Runs turns until `condition` holds or `timeout` seconds pass.
    /// Returns whether the condition held.
    @discardableResult
    public func run(until condition: () -> Bool, timeout: Double? = nil) -> Bool {
        let deadline = timeout.map { now + $0 }
        stopRequested = false
        defer { stopRequested = false }
        while !condition() {
            if stopRequested { return condition() }
            var wait: Double? = nil
            if let deadline {
                let left = deadline - now
                if left <= 0 { return condition() }
                wait = left
            }
            runOnce(timeout: wait)
        }
        return true
    }

    /// One turn: run posted work, wait for readiness or the nearest timer (at most
    /// `timeout` seconds, `nil` for no limit), then run what became ready or due.
    public func runOnce(timeout: Double?) {
        turns += 1
        // Work posted from outside a turn may have changed what the caller waits
        // for: if any ran, only look at fds and timers, do not block.
        let ranPostedWork = runDeferred()
        var wait = ranPostedWork ? 0 : timeout
        if let nearest = timers.values.map(\.deadline).min() {
            let left = max(0, nearest - now)
            wait = min(wait ?? left, left)
        }
        if ranPostedWork || !deferred.isEmpty { wait = 0 }

        let active = watches.filter { !$0.value.interest.isEmpty }.sorted { $0.key < $1.key }
        var fds = active.map { pollfd(fd: $0.value.fd, events: $0.value.interest.rawValue, revents: 0) }
        let millis: Int32
        if let wait {
            millis = Int32(min((wait * 1000).rounded(.up), Double(Int32.max)))
        } else {
            millis = -1
        }
        let count = fds.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), millis)
        }
        if count > 0 {
            for (index, entry) in active.enumerated() where fds[index].revents != 0 {
                // A handler may have removed or changed this watch meanwhile.
                guard let current = watches[entry.key] else { continue }
                let ready = Readiness(rawValue: fds[index].revents)
                let relevant = ready.intersection(current.interest.union(.hangup))
                if !relevant.isEmpty { current.handler(relevant) }
            }
        }
        runDueTimers()
        runDeferred()
    }

    private func runDueTimers() {
        let time = now
        let due = timers.filter { $0.value.deadline <= time }.sorted {
            ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
        }
        for (id, timer) in due {
            guard timers.removeValue(forKey: id) != nil else { continue }
            timer.handler()
        }
    }

    /// Runs posted work (including work it posts); returns whether any ran.
    @discardableResult
    private func runDeferred() -> Bool {
        var ran = false
        while !deferred.isEmpty {
            let work = deferred
            deferred.removeAll()
            for item in work { item() }
            ran = true
        }
        return ran
    }
}
