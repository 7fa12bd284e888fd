import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// `--secure`: where each central's pairing stands, as the agent and bluetoothd tell it.
struct PeripheralPairing: Sendable {
    /// Centrals shown a passkey that have not bonded yet.
    private(set) var shown: [BluetoothAddress: Passkey] = [:]
    /// Connected centrals whose failed attempt was reported already (not again when they leave).
    private(set) var reported: Set<BluetoothAddress> = []
    /// Bonds made and attempts failed since the start (for `status`).
    private(set) var paired = 0
    private(set) var failed = 0
    /// Paces the reports of failed attempts (at most 3 per 5 s).
    private var failureReports = RateLimiter(limit: 3, per: 5)

    /// bluetoothd shows `passkey` to `central`: whether it is news (it calls again for each
    /// digit typed on a keyboard that reports them; `entered` 0 is a new attempt).
    mutating func show(_ passkey: Passkey, to central: BluetoothAddress, entered: UInt16) -> Bool {
        guard shown[central] != passkey || entered == 0 else { return false }
        shown[central] = passkey
        return true
    }

    /// `central`'s attempt ended (bonded, refused, or it left): the passkey it was shown, if any.
    @discardableResult
    mutating func ended(_ central: BluetoothAddress) -> Passkey? {
        shown.removeValue(forKey: central)
    }

    /// bluetoothd cancelled the request in progress: the central it was for, when only one was shown a passkey.
    mutating func cancelled() -> BluetoothAddress? {
        guard shown.count == 1, let central = shown.keys.first else { return nil }
        shown = [:]
        return central
    }

    /// `central` bonded.
    mutating func bonded(_ central: BluetoothAddress) {
        ended(central)
        paired += 1
    }

    /// `central`'s attempt failed at `now` (`reportedNow` unless it failed by leaving): whether
    /// its line is within the pace.
    mutating func attemptFailed(_ central: BluetoothAddress, reportedNow: Bool, at now: Double) -> Bool {
        failed += 1
        if reportedNow { reported.insert(central) }
        guard case .allow = failureReports.admit(now: now) else { return false }
        return true
    }

    /// `central` left: a failure it had is not remembered.
    mutating func left(_ central: BluetoothAddress) {
        reported.remove(central)
    }
}
