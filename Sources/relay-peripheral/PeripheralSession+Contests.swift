import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// How a second link came to answer to a central's address.
enum AddressClaim: Equatable, Sendable {
    /// The central at `claimant` paired and gave the address as its identity.
    case pairedAs(claimant: BluetoothAddress)
    /// An L2CAP channel with the address came on another link than the central's open channel.
    case secondLink
}

/// Two links under one address (`AddressContests`). A pairing's identity address is whatever
/// the pairing central distributes: a just-works pairing proves nothing, and an authenticated one
/// proves only that someone typed the passkey shown. When one names another central relay knows
/// (connected, or in open mode with a session), the kernel and bluetoothd name both links alike from then on:
/// relay takes nothing more from either address (values, channels, lane reads), puts their
/// sessions away to resume when their centrals come back alone, and ends every link of them.
extension PeripheralSession {
    /// The central at `address` paired and gave `identity` as its address.
    mutating func identityResolved(_ address: BluetoothAddress, identity: BluetoothAddress) -> [PeripheralAction] {
        // With `--secure` a central whose bond was lost pairs again under a new private
        // address and gives its own identity, which its away session has: no contest.
        let known =
            centrals[identity] != nil || contests.contains(identity)
            || (!settings.secure && delivery.sessions.values.contains { $0.address == identity })
        if identity != address, known {
            return contest([address, identity], .pairedAs(claimant: address), named: identity)
        }
        // The identity address is the one the central itself distributed when it paired: it says
        // who the central is only when the pairing was authenticated, which `--secure` demands
        // (its characteristics need an authenticated link, its agent shows the passkey). An
        // open-mode pairing is just-works: any central can claim any identity that way, so it is
        // neither allowed by it nor taken for the central it names.
        if settings.secure { identities[address] = identity }
        return []
    }

    /// Opens a contest over `addresses`, reported under `named`: their sessions wait for a hello,
    /// their channels close, and the connected ones are disconnected.
    mutating func contest(
        _ addresses: Set<BluetoothAddress>, _ claim: AddressClaim, named: BluetoothAddress
    ) -> [PeripheralAction] {
        let connected = addresses.filter { centrals[$0] != nil }
        contests.open(addresses, connected: connected)
        var actions: [PeripheralAction] = [.report(.error(.addressContested(claim), from: named))]
        for address in addresses.sorted() {
            identities[address] = nil
            centrals[address]?.noteLanePSMRead(false)
            sessionsLinkDown(at: address)
            actions += lanesLinkDown(at: address)
        }
        return actions + connected.sorted().map { .disconnect($0) }
    }

    /// A contested address connected again: it is ended again until every link of its contest
    /// has gone.
    mutating func contestedReconnected(_ address: BluetoothAddress) -> [PeripheralAction] {
        contests.reconnected(address)
        return [.disconnect(address)]
    }
}
