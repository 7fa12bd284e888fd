import RelayEndpoint

/// What relay-peripheral refuses and how often it says so: calls on its objects from other bus
/// clients, values from centrals outside `--allow`, and refused or broken L2CAP channels. Part of
/// `PeripheralSession`.
struct PeripheralRefusals {
    /// Paces the reports of refused bus calls (at most 3 per 5 s).
    private var refusedCalls = RateLimiter(limit: 3, per: 5)
    /// Values (and channels) dropped because their central is not in `--allow`, and the pace of
    /// the values' reports.
    private(set) var notAllowedValues = 0
    private var notAllowedReports = RateLimiter(limit: 3, per: 5)
    /// Paces the reports of refused and malformed L2CAP channels (at most 3 per 5 s).
    private var laneRefusals = RateLimiter(limit: 3, per: 5)

    /// A bus call was refused at `now`: whether to say so (and how many were left unsaid since).
    mutating func refusedCall(at now: Double) -> RateLimiter.Admission {
        refusedCalls.admit(now: now)
    }

    /// A value from a central outside `--allow` was dropped at `now`: whether to say so.
    mutating func notAllowedValue(at now: Double) -> RateLimiter.Admission {
        notAllowedValues += 1
        return notAllowedReports.admit(now: now)
    }

    /// A channel was refused or broke at `now` (`notAllowed`: its central is outside `--allow`,
    /// counted with the values): whether to say so.
    mutating func laneRefused(notAllowed: Bool, at now: Double) -> Bool {
        if notAllowed { notAllowedValues += 1 }
        guard case .allow = laneRefusals.admit(now: now) else { return false }
        return true
    }
}
