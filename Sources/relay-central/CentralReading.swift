import RelayBlueZ

/// The `read` command in progress: both characteristics are read, and it finishes with the
/// second. Part of `CentralSession`; its command waits in the session's `commands` (`.read`).
struct CentralReading: Equatable, Sendable {
    /// Answers still to come (2 when a read starts).
    private(set) var pending = 0
    private(set) var failures: [ReadFailure] = []
    /// Values of the notify characteristic seen while a read of it is pending on the signal
    /// path: reading changes `Value` too, and that change is the read, not a notification.
    private(set) var valuesDuringRead: [[UInt8]]?

    /// A read of both characteristics starts; `holdingNotifications` when notifications change
    /// `Value` (the signal path), so that those seen meanwhile are told from the read's echo.
    mutating func begin(holdingNotifications: Bool) {
        pending = 2
        failures = []
        valuesDuringRead = holdingNotifications ? [] : nil
    }

    /// Whether the notify characteristic's `Value` changes are held now (a read of it is pending).
    var isHoldingNotifications: Bool { valuesDuringRead != nil }

    /// Holds a `Value` change of the notify characteristic seen during the read; false when none
    /// is pending (it is a notification).
    mutating func hold(_ value: [UInt8]) -> Bool {
        guard valuesDuringRead != nil else { return false }
        valuesDuringRead?.append(value)
        return true
    }

    /// The answer for `role`: the failures once both answered (nil while one is pending), and the
    /// notifications held during the read of the notify characteristic, its echo taken out.
    mutating func answered(
        _ role: CharacteristicRole, _ result: Result<[UInt8], BlueZError>
    ) -> (failures: [ReadFailure]?, held: [[UInt8]]) {
        guard pending > 0 else { return (nil, []) }
        pending -= 1
        var held: [[UInt8]] = []
        if role == .notify, let seen = valuesDuringRead {
            held = seen
            valuesDuringRead = nil
            // Reading updates `Value` too: that change is the read, not a notification.
            if case .success(let value) = result, let echo = held.firstIndex(of: value) { held.remove(at: echo) }
        }
        if case .failure(let error) = result { failures.append(ReadFailure(role: role, error: error)) }
        guard pending == 0 else { return (nil, held) }
        defer { failures = [] }
        return (failures, held)
    }

    /// The link ended: nothing more is answered or held.
    mutating func linkEnded() {
        pending = 0
        failures = []
        valuesDuringRead = nil
    }
}
