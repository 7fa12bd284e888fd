import RelayCLI
import RelayEndpoint
import RelayProtocol

/// `--allow ADDRESS[,ADDRESS...]`: values written by any other central are dropped before they
/// reach a pipeline, a counter report or the UART line, and reported at a bounded rate.
extension PeripheralSession {
    /// Whether a value written by `address` may reach the session: always without `--allow`;
    /// with it, only from a listed central, by the address it connected with or the identity
    /// address it bonded with (a write bluetoothd did not name is never listed).
    func admitsWriter(_ address: BluetoothAddress?) -> Bool {
        guard let allowed = settings.allowedCentrals else { return true }
        guard let address else { return false }
        return allowed.contains(address) || identities[address].map(allowed.contains) ?? false
    }

    /// A value from a central outside `--allow`, dropped: reported at most 3 times per 5 s, the
    /// report after a quiet spell counting the ones left out.
    mutating func dropUnlisted(_ address: BluetoothAddress?) -> [PeripheralAction] {
        guard case .allow(let suppressed) = refusals.notAllowedValue(at: now) else { return [] }
        return [.report(.error(.notAllowed(suppressed: suppressed), from: address))]
    }
}
