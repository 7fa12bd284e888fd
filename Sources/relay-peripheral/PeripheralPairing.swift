import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// `--secure`: where each central's pairing stands, as the agent and bluetoothd tell it.
struct PeripheralPairing: Sendable {
    /// Centrals shown a passkey that have not bonded yet.
    var shown: [BluetoothAddress: Passkey] = [:]
    /// Connected centrals whose failed attempt was reported already (not again when they leave).
    var reported: Set<BluetoothAddress> = []
    /// Bonds made and attempts failed since the start (for `status`).
    var paired = 0
    var failed = 0
    /// Paces the reports of failed attempts (at most 3 per 5 s).
    var failureReports = RateLimiter(limit: 3, per: 5)
}
