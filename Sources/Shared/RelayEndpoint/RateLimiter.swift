/// Lets at most `limit` reports through per `interval` seconds and counts the rest, so a
/// flood (a hostile peer writing garbage at full speed) cannot drown the REPL.
///
/// ```swift
/// switch limiter.admit(now: loop.now) {
/// case .allow(let suppressed):
///     console.error(message + (suppressed > 0 ? " (\(suppressed) similar errors suppressed)" : ""))
/// case .suppress: break
/// }
/// ```
public struct RateLimiter: Sendable, Equatable {
    /// Whether to report.
    public enum Admission: Sendable, Equatable {
        /// Report; `suppressed` reports were dropped since the last one let through.
        case allow(suppressed: Int)
        /// Drop this one (it is counted).
        case suppress
    }

    /// Reports allowed per window.
    public let limit: Int
    /// Window length in seconds.
    public let interval: Double
    private var windowStart = -Double.infinity
    private var used = 0
    /// Reports dropped since the last one let through.
    public private(set) var suppressed = 0

    /// A limiter allowing `limit` reports per `interval` seconds.
    public init(limit: Int = 5, per interval: Double = 1) {
        self.limit = max(1, limit)
        self.interval = interval
    }

    /// Decides about one report at time `now` (monotonic seconds, e.g. `EventLoop.now`).
    public mutating func admit(now: Double) -> Admission {
        if now - windowStart >= interval {
            windowStart = now
            used = 0
        }
        guard used < limit else {
            suppressed += 1
            return .suppress
        }
        used += 1
        let dropped = suppressed
        suppressed = 0
        return .allow(suppressed: dropped)
    }
}
