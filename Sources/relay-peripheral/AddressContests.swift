import RelayProtocol

/// Addresses two links answer to at once. bluetoothd and the kernel name a central by its
/// address; a pairing that distributes another central's address as its identity renames the
/// pairing link (its device object's `Address`, its channels' peer address) to that central's
/// while both are connected, and from then on a value, a channel or a write named by the address
/// may be either link's. Nothing from such an address is taken until every link of the contest
/// has gone. Part of `PeripheralSession`.
struct AddressContests: Sendable {
    /// One contest: its addresses, and those bluetoothd has not yet reported gone.
    private struct Contest: Sendable {
        var addresses: Set<BluetoothAddress>
        var connected: Set<BluetoothAddress>
    }

    private var contests: [Contest] = []

    /// Whether `address` is in a contest.
    func contains(_ address: BluetoothAddress?) -> Bool {
        guard let address else { return false }
        return contests.contains { $0.addresses.contains(address) }
    }

    /// Opens a contest over `addresses`, of which `connected` have links (one joined with any it
    /// overlaps). One with no link left ends at once.
    mutating func open(_ addresses: Set<BluetoothAddress>, connected: Set<BluetoothAddress>) {
        var merged = Contest(addresses: addresses, connected: connected)
        contests.removeAll { contest in
            guard !contest.addresses.isDisjoint(with: addresses) else { return false }
            merged.addresses.formUnion(contest.addresses)
            merged.connected.formUnion(contest.connected)
            return true
        }
        if !merged.connected.isEmpty { contests.append(merged) }
    }

    /// `address` connected again while its contest lasts (it is to be ended again).
    mutating func reconnected(_ address: BluetoothAddress) {
        guard let index = contests.firstIndex(where: { $0.addresses.contains(address) }) else { return }
        contests[index].connected.insert(address)
    }

    /// bluetoothd reported `address` gone: a contest none of whose links remains ends.
    mutating func gone(_ address: BluetoothAddress) {
        guard let index = contests.firstIndex(where: { $0.addresses.contains(address) }) else { return }
        contests[index].connected.remove(address)
        if contests[index].connected.isEmpty { contests.remove(at: index) }
    }
}
