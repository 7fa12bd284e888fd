import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayREPL

/// Secure mode on the central: it pairs before it subscribes when the peripheral serves the
/// pairing characteristic (relay-peripheral --secure), or when a subscription is refused for
/// want of a bond; the passkey bluetoothd asks our agent for is typed with `passkey NNNNNN`.
/// The bond is bluetoothd's: a reconnect (also after a bluetoothd restart) needs no passkey.
extension CentralSession {
    /// Whether bluetoothd holds a bond with the device.
    func isPaired(_ id: DeviceID) -> Bool { devices[id]?.paired ?? false }

    /// The characteristics of a relay peripheral, before they are taken up: pair first when it
    /// asks for a bond (its pairing characteristic) and there is none. Nil: go on.
    mutating func pairIfAsked(_ peer: Peer, _ found: [RemoteCharacteristic]) -> [CentralAction]? {
        guard found.contains(where: { $0.uuid == RelayProfile.pairingCharacteristic }), !isPaired(peer.id),
            pairing.device == nil
        else { return nil }
        return startPairing(peer, resume: .characteristics(found))
    }

    /// The subscription was refused: when bluetoothd said the link lacks a bond, pair (once per
    /// link) and subscribe again. Nil: it is another failure.
    mutating func pairAfterRefusal(_ peer: Peer, _ error: BlueZError) -> [CentralAction]? {
        guard [.notPermitted, .notAuthorized].contains(error.kind), !pairing.triedOnLink, pairing.device == nil else {
            return nil
        }
        return startPairing(peer, resume: .subscribe)
    }

    private mutating func startPairing(_ peer: Peer, resume: CentralPairing.Resume) -> [CentralAction] {
        pairing.start(on: peer.id, then: resume)
        return [.pair(peer.id)]
    }

    /// `pair`: pair with the connected peripheral by hand.
    mutating func pairCommand() throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        guard let peer, link != .disconnecting(peer) else { throw .pairNotConnected }
        if pairing.device != nil { throw .pairingInProgress }
        if isPaired(peer.id) { throw .alreadyPaired(peer) }
        return .waiting(for: .pair, startPairing(peer, resume: .none))
    }

    /// `passkey NNNNNN`: the answer to the agent's request.
    mutating func passkeyCommand(_ passkey: Passkey) throws(CentralProblem) -> CommandStart<CentralAction, CentralWait>
    {
        guard pairing.awaitingPasskey else { throw .noPasskeyRequested }
        pairing.awaitingPasskey = false
        return .done([.answerPasskey(passkey)])
    }

    /// `unpair`: forget the bond with the peripheral (connected, or the last one): bluetoothd
    /// disconnects it and removes the device; the next connection pairs again.
    mutating func unpairCommand() throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        let target = peer?.id ?? devices.values.first { $0.paired && $0.address == automatic.lastRelayAddress }?.id
        guard let target, isPaired(target) else { throw .notPaired(peer) }
        guard !commands.isWaiting(for: .unpair) else { throw .unpairInProgress }
        automatic.cancel()
        return .waiting(for: .unpair, [.cancelTimer(.reconnect), .unpair(target)])
    }

    /// Our agent was asked for the passkey. A `connect` or `pair` command waiting finishes
    /// now (successfully): the REPL runs one command at a time, and `passkey` must get its turn.
    /// The link becomes `ready` after the passkey.
    mutating func passkeyRequested(_ id: DeviceID) -> [CentralAction] {
        pairing.awaitingPasskey = true
        var actions: [CentralAction] = [.report(.pairing(.request(PeerName(.peripheral, devices[id]?.address))))]
        actions += commands.finish(.connect, nil) + commands.finish(.pair, nil)
        connectUntil = nil
        return actions
    }

    mutating func pairingCancelled() -> [CentralAction] {
        pairing.awaitingPasskey = false
        return []
    }

    mutating func pairFinished(_ id: DeviceID, _ error: BlueZError?) -> [CentralAction] {
        guard pairing.device == id else { return [] }
        let resume = pairing.finished()
        let token = commands.take(.pair)
        let name = PeerName(.peripheral, devices[id]?.address ?? peer?.address)
        if let error, error.kind != .alreadyExists {
            let failure = PairingFailure(error)
            var actions: [CentralAction] = [.report(.pairing(.failed(name, failure)))]
            if let token { actions.append(.finish(token, .pairFailed(failure))) }
            guard let peer, peer.id == id, resume != .none else { return actions }
            return actions
                + abandon(
                    peer, .pairingRequiredAndFailed(peer, failure), disconnectReason: "pairing failed",
                    alreadyReported: true)
        }
        devices[id]?.paired = true
        var actions: [CentralAction] = [.report(.pairing(.paired(name)))]
        if let token { actions.append(.finish(token, nil)) }
        switch (resume, link) {
        case (.characteristics(let found), .resolving(let peer)) where peer.id == id:
            return actions + characteristicsFound(id, found)
        case (.subscribe, .subscribing(let peer, let relay)) where peer.id == id:
            return actions + [.startNotify(relay.dataNotify)]
        default:
            return actions
        }
    }

    mutating func unpairFinished(_ id: DeviceID, _ error: BlueZError?) -> [CentralAction] {
        guard let token = commands.take(.unpair) else { return [] }
        if let error { return [.finish(token, .unpairFailed(error))] }
        let name = PeerName(.peripheral, devices[id]?.address)
        devices[id]?.paired = false
        return [.report(.pairing(.unpaired(name))), .finish(token, nil)]
    }
}
