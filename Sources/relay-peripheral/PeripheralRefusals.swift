import RelayEndpoint

/// What relay-peripheral refuses and how often it says so: calls on its objects from other bus
/// clients, and values from centrals outside `--allow`. Part of `PeripheralSession`.
struct PeripheralRefusals {
    /// Paces the reports of refused bus calls (at most 3 per 5 s).
    var refusedCalls = RateLimiter(limit: 3, per: 5)
    /// Values dropped because their central is not in `--allow`, and the pace of their reports.
    var notAllowedValues = 0
    var notAllowedReports = RateLimiter(limit: 3, per: 5)
    /// Paces the reports of refused and malformed L2CAP channels (at most 3 per 5 s).
    var laneRefusals = RateLimiter(limit: 3, per: 5)
}
