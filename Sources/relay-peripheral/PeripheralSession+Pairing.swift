import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// What the pairing agent and the device objects said (`--secure`).
enum PairingInput: Equatable, Sendable {
    /// bluetoothd asks to show `passkey` to `central`; `entered`: digits typed there so far.
    case passkeyShown(BluetoothAddress, Passkey, entered: UInt16)
    /// `central` asked to pair without a passkey: the agent refused.
    case refusedWithoutPasskey(BluetoothAddress)
    /// bluetoothd cancelled the request in progress.
    case cancelled
    /// `central`'s device object turned `Paired`.
    case paired(BluetoothAddress)
    /// `central` is leaving (its `disconnected` follows) with no bond.
    case leftUnpaired(BluetoothAddress)
    /// bluetoothd refused to register the agent.
    case agentFailed(BlueZError)
}

/// The peripheral's side of pairing: it shows each attempt's passkey once, reports a bond, and
/// reports (at a bounded rate) attempts that failed: refused without a passkey, cancelled, a
/// central that left after seeing a passkey without bonding (bluetoothd tells a peripheral of a
/// wrong passkey only that way), or one that left without trying (bluetoothd refused its values
/// unseen: this is all the peripheral can know of it).
extension PeripheralSession {
    mutating func pairingChanged(_ input: PairingInput) -> [PeripheralAction] {
        switch input {
        case .passkeyShown(let central, let passkey, let entered):
            guard pairing.show(passkey, to: central, entered: entered) else { return [] }
            return [.report(.pairing(.passkey(PeerName(.central, central), passkey)))]
        case .refusedWithoutPasskey(let central):
            pairing.ended(central)
            return pairingFailed(central, .withoutPasskey)
        case .cancelled:
            guard let central = pairing.cancelled() else { return [] }
            return pairingFailed(central, .cancelled)
        case .paired(let central):
            pairing.bonded(central)
            return [.report(.pairing(.paired(PeerName(.central, central))))]
        case .leftUnpaired(let central):
            // One shown a passkey is reported as not completed when it is gone (`pairingLeft`);
            // one whose attempt was refused or cancelled was reported then.
            guard pairing.shown[central] == nil, !pairing.reported.contains(central) else { return [] }
            return pairingFailed(central, .notPaired)
        case .agentFailed(let error):
            return [.report(.error(.agent(error), from: nil))]
        }
    }

    /// A central left: if it was shown a passkey and did not bond, its attempt failed.
    mutating func pairingLeft(_ central: BluetoothAddress) -> [PeripheralAction] {
        guard pairing.ended(central) != nil else { return [] }
        return pairingFailed(central, .notCompleted)
    }

    private mutating func pairingFailed(_ central: BluetoothAddress, _ failure: PairingFailure) -> [PeripheralAction] {
        guard pairing.attemptFailed(central, reportedNow: failure != .notCompleted, at: now) else { return [] }
        return [.report(.pairing(.failed(PeerName(.central, central), failure)))]
    }
}
