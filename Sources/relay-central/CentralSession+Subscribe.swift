import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// From services resolved to ready: the relay characteristics, the subscription, the write
/// path and the MTU; and what ends with a link.
extension CentralSession {
    mutating func characteristicsFound(_ id: DeviceID, _ found: [RemoteCharacteristic]) -> [CentralAction] {
        guard case .resolving(let peer) = link, peer.id == id else { return [] }
        if linkService == .nus { return uartCharacteristicsFound(peer, found) }
        let inService = found.filter { $0.serviceUUID == RelayProfile.service }
        guard !inService.isEmpty else {
            return notRelay(peer, "it has no relay service \(RelayProfile.service)")
        }
        guard let write = inService.first(where: { $0.uuid == RelayProfile.writeCharacteristic }) else {
            return notRelay(
                peer, "its relay service lacks the write characteristic \(RelayProfile.writeCharacteristic)")
        }
        guard let notify = inService.first(where: { $0.uuid == RelayProfile.notifyCharacteristic }) else {
            return notRelay(
                peer, "its relay service lacks the notify characteristic \(RelayProfile.notifyCharacteristic)")
        }
        guard write.flags.contains(.writeWithoutResponse) else {
            return notRelay(peer, "its write characteristic is not write-without-response (flags: \(write.flags))")
        }
        guard notify.flags.contains(.notify) else {
            return notRelay(peer, "its notify characteristic does not notify (flags: \(notify.flags))")
        }
        // Protocol 2 when the peripheral offers the session characteristic (and we speak it):
        // then that is the only one subscribed to and written, so nothing of version 2 reaches a
        // peer that did not show it speaks it, and nothing of version 1 comes back.
        let session = inService.first {
            $0.uuid == RelayProfile.sessionCharacteristic && $0.flags.contains(.notify)
                && $0.flags.contains(.writeWithoutResponse)
        }
        if let pairFirst = pairIfAsked(peer, inService) { return pairFirst }
        var relay = RelayLink(write: write.id, notify: notify.id)
        if settings.delivery.speaksVersion2 { relay.session = session?.id }
        if relay.session != nil, settings.lane.usesLane {
            relay.lane = inService.first { $0.uuid == RelayProfile.laneCharacteristic && $0.flags.contains(.read) }?.id
        }
        relay.secure = inService.contains { $0.uuid == RelayProfile.pairingCharacteristic }
        delivery.newLink()
        // AcquireNotify unless --notify-path signal: one dbus-daemon hop less per notification.
        // bluetoothd drops a notification when the socket is full, so the driver reads it on its
        // own thread (see NotificationSocket).
        let subscribe: CentralAction =
            settings.notifyPath == .socket ? .acquireNotify(relay.dataNotify) : .startNotify(relay.dataNotify)
        if settings.writePath == .writeValue {
            relay.path = .writeValue
            link = .subscribing(peer, relay)
            return [subscribe, .readMTU(relay.dataWrite)]
        }
        link = .subscribing(peer, relay)
        return [subscribe, .acquireWrite(relay.dataWrite)]
    }

    /// The device answered but is not a relay peripheral: say so and disconnect. While reconnecting
    /// by itself to a peer that was a relay peripheral, this is "not ready yet" instead (its
    /// relay-peripheral has not registered its GATT application again, e.g. right after a power
    /// cycle): disconnect and retry after a back-off of 1, 2, 4, then 5 s.
    mutating func notRelay(_ peer: Peer, _ reason: String) -> [CentralAction] {
        if automatic.target != nil, automatic.persistent, !commands.isWaiting(for: .connect),
            peer.address == automatic.lastRelayAddress,
            let delay = nextRetryDelay()
        {
            return leave(
                peer, reason: "\(peer) is not ready yet: \(reason); retrying in \(CentralProblem.seconds(delay))",
                retryAfter: delay)
        }
        if linkService == .nus {
            return abandon(peer, .notOurService(peer, .nus, reason: reason), disconnectReason: "not a UART device")
        }
        return abandon(peer, .notOurService(peer, .relay, reason: reason), disconnectReason: "not a relay peripheral")
    }

    /// The pause before the `attempt`-th (from 0) automatic retry: `first`, doubling, at most 5 s.
    static func retryBackoff(attempt: Int, first: Double = 1) -> Double {
        min(max(5, first), first * Double(1 << min(attempt, 3)))
    }

    /// Gives up on a link being set up: reports `problem`, fails `connect`, disconnects.
    mutating func abandon(
        _ peer: Peer, _ problem: CentralProblem, disconnectReason reason: String, alreadyReported: Bool = false
    ) -> [CentralAction] {
        automatic.cancel()
        return (alreadyReported ? [] : [.report(.error(problem))]) + failConnect(problem) + leave(peer, reason: reason)
    }

    mutating func notifyStarted(_ error: BlueZError?) -> [CentralAction] {
        guard case .subscribing(let peer, var relay) = link else { return [] }
        if let error {
            if let pairFirst = pairAfterRefusal(peer, error) { return pairFirst }
            return abandon(peer, .subscribeFailed(peer, error), disconnectReason: "subscription failed")
        }
        relay.notifying = true
        relay.notifyVia = .signal
        return checkReady(peer, relay)
    }

    mutating func notifyAcquired() -> [CentralAction] {
        guard case .subscribing(let peer, var relay) = link else { return [] }
        relay.notifying = true
        relay.notifyVia = .socket
        return checkReady(peer, relay)
    }

    /// `AcquireNotify` was refused: subscribe with `StartNotify` (its failure abandons the link).
    mutating func notifyAcquireFailed() -> [CentralAction] {
        guard case .subscribing(_, let relay) = link, !relay.notifying else { return [] }
        return [.startNotify(relay.dataNotify)]
    }

    /// The `AcquireNotify` socket closed under a link that is still up as far as we know:
    /// subscribe again with `StartNotify` so that notifications keep coming (when the link is
    /// going down, that call fails and the disconnection is reported as usual).
    mutating func notifySocketClosed() -> [CentralAction] {
        switch link {
        case .subscribing(let peer, var relay) where relay.notifyVia == .socket:
            relay.notifying = false
            relay.notifyVia = nil
            link = .subscribing(peer, relay)
            return [.startNotify(relay.dataNotify)]
        case .ready(let peer, var relay) where relay.notifyVia == .socket:
            relay.notifyVia = .signal
            link = .ready(peer, relay)
            return [.startNotify(relay.dataNotify)]
        default:
            return []
        }
    }

    mutating func writeAcquired(_ mtu: MTU) -> [CentralAction] {
        guard case .subscribing(let peer, var relay) = link else { return [] }
        relay.path = .socket
        relay.mtu = max(mtu, relay.mtu ?? mtu)
        return checkReady(peer, relay)
    }

    mutating func writeAcquireFailed() -> [CentralAction] {
        guard case .subscribing(let peer, var relay) = link else { return [] }
        relay.path = .writeValue
        link = .subscribing(peer, relay)
        return [.readMTU(relay.dataWrite)]
    }

    mutating func mtuRead(_ mtu: MTU?) -> [CentralAction] {
        guard case .subscribing(let peer, var relay) = link, relay.path == .writeValue || relay.path == .writeRequest
        else { return [] }
        relay.mtu = max(mtu ?? .default, relay.mtu ?? .default)
        return checkReady(peer, relay)
    }

    mutating func mtuChanged(_ mtu: MTU) -> [CentralAction] {
        switch link {
        case .subscribing(let peer, var relay):
            if relay.mtu != nil { relay.mtu = mtu }
            link = .subscribing(peer, relay)
            return []
        case .ready(let peer, var relay):
            guard relay.mtu != mtu else { return [] }
            relay.mtu = mtu
            link = .ready(peer, relay)
            writing.chunker.mtu = mtu
            return [.report(.mtu(mtu))]
        default:
            return []
        }
    }

    mutating func checkReady(_ peer: Peer, _ relay: RelayLink) -> [CentralAction] {
        guard relay.notifying, let mtu = relay.mtu, let path = relay.path else {
            link = .subscribing(peer, relay)
            return []
        }
        link = .ready(peer, relay)
        writing.chunker.mtu = mtu
        automatic.ready(peer.address)
        _ = receiving.linkEnded("reconnected", from: peripheralName)
        _ = path
        if relay.service == .nus { return announceReady(peer, relay, protocolVersion: nil) + pump() }
        // With the session characteristic, ready is reported once the handshake decided the version.
        if relay.session != nil { return startLaneOrGreeting(peer, relay) }
        return announceReady(peer, relay, protocolVersion: 1) + pump()
    }

    /// Reports `ready` (with the protocol version) and completes `connect`.
    mutating func announceReady(_ peer: Peer, _ relay: RelayLink, protocolVersion: Int?) -> [CentralAction] {
        guard let mtu = relay.mtu, let path = relay.path else { return [] }
        var actions: [CentralAction] = [
            .report(
                .ready(
                    peer, mtu: mtu, path: path, notify: relay.notifyVia ?? .signal, protocolVersion: protocolVersion,
                    lane: protocolVersion == 2 ? messageLane : nil)
            )
        ]
        if commands.isWaiting(for: .connect) {
            connectUntil = nil
            actions += commands.finish(.connect, nil)
        }
        return actions
    }

    /// The link ended without being asked to.
    mutating func linkLost(reason: String) -> [CentralAction] {
        guard let peer else { return [] }
        let wasSetUp: Bool
        switch link {
        case .resolving, .subscribing, .ready: wasSetUp = true
        case .idle, .connecting, .disconnecting: wasSetUp = false
        }
        link = .idle
        leaving = Leaving()
        var actions: [CentralAction] = [.cancelTimer(.settle), .report(.disconnected(peer, reason: reason))]
        actions += cleanUpLink(reason: "disconnected")
        actions += failConnect(.couldNotConnect(peer, reason: reason))
        actions += commands.finish(.disconnect, nil)
        if settings.reconnect, automatic.target == nil, wasSetUp {
            automatic.seek(.address(peer.address), persistent: true)
        }
        if let target = automatic.target, automatic.persistent, case .address(let address) = target {
            actions.append(.report(.reconnecting(address)))
        }
        guard automatic.target != nil, automatic.persistent else { return actions + tryAutoConnect() }
        // Not at once: a link lost because our adapter is going down is followed by its
        // `Powered` turning false tens of milliseconds later, and a connection dialled in between
        // made Debian 12's kernel (6.1) crash bluetoothd (`list_del corruption` in
        // `hci_chan_del`, from `l2cap_sock_release`): twice in the test bed's power cycles.
        return actions + [.startTimer(.reconnect, after: Self.relinkPause)]
    }

    /// Seconds between a link lost and dialling it again by itself (`linkLost`).
    static let relinkPause = 1.0

    /// Whatever a link carried ends with it: the partial message, queued sends, a pending read.
    /// Version-2 transfers wait for a resume unless `keepTransfers` is false (a disconnect asked
    /// for, quitting): then they fail.
    mutating func cleanUpLink(reason: String, keepTransfers: Bool = true) -> [CentralAction] {
        var actions: [CentralAction] = deliveryLinkEnded(keep: keepTransfers, reason: reason)
        actions += uartLinkEnded(reason: reason)
        vanishedCharacteristic = nil
        reading.linkEnded()
        let from = PeerName(.peripheral, peer?.address)
        if let dropped = receiving.linkEnded("\(reason) before the message was complete", from: from) {
            actions.append(.report(.transfer(dropped)))
        }
        for (item, taken) in writing.linkEnded() {
            switch item {
            case .counter(let counter, let wait):
                actions += commands.finish(wait, .counterNotWritten(counter, reason: reason))
            case .message(let message, let wait):
                let problem = CentralProblem.messageCutOff(
                    number: message.number, reason: reason, taken: taken, of: message.frames)
                actions.append(.report(.error(problem)))
                actions += commands.finish(wait, problem)
            }
        }
        actions += commands.finishAll(where: \.endsWithLink) { _ in .readInterrupted(reason: reason) }
        actions.append(releaseSockets())
        return actions
    }
}
