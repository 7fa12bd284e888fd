import RelayApp
import RelayBlueZ
import RelayProtocol

extension CentralSession {
    /// Starts leaving the link's peer: `Disconnect` (which also cancels a `Connect` bluetoothd is
    /// still working on). It ends when bluetoothd answered and `Connected` is false, so the next
    /// `Connect` never meets the old connection (or attempt) still going away.
    mutating func leave(
        _ peer: Peer, reason: String?, reported: Bool = true, retryAfter: Double? = nil
    ) -> [CentralAction] {
        leaving = Leaving(
            reason: reason, reported: reported, wasConnected: devices[peer.id]?.connected ?? false, replied: false,
            retryAfter: retryAfter)
        link = .disconnecting(peer)
        return [releaseSockets(), .disconnect(peer.id)]
    }

    /// A `Device1` change of the peer being left.
    mutating func leavingDeviceUpdated(_ device: DeviceInfo) -> [CentralAction] {
        if device.connected {
            leaving.wasConnected = true
            return []
        }
        // Not connected: done once it was connected (the link went down) or bluetoothd answered.
        return leaving.wasConnected || leaving.replied ? finishDisconnect() : []
    }

    mutating func disconnectCommand() throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        guard let peer else {
            if automatic.target != nil {
                // Cancels a pending automatic connection (reconnect or resume).
                automatic.cancel()
                var actions: [CentralAction] = [.cancelTimer(.reconnect)]
                if case .seeking = scanning.state.purpose {
                    scanning.stop()
                    actions += [
                        .cancelTimer(.scan), .stopDiscovery,
                        .report(.scanStopped(reason: .requested, found: scanning.candidates.count)),
                    ]
                }
                return .done(actions + failConnect(.connectCancelledByDisconnect))
            }
            throw .nothingToDisconnect
        }
        if case .disconnecting = link { throw .alreadyDisconnecting(peer) }
        automatic.cancel()
        return .waiting(
            for: .disconnect,
            [.cancelTimer(.reconnect)] + failConnect(.connectCancelledByDisconnect) + leave(peer, reason: nil))
    }

    /// bluetoothd answered `Disconnect`. Done when the device is not connected (or the call
    /// failed: NotConnected and friends mean it is not); otherwise `Connected` turning false
    /// ends it, or the settle timer.
    mutating func disconnectFinished(_ id: DeviceID, _ error: BlueZError?) -> [CentralAction] {
        guard case .disconnecting(let peer) = link, peer.id == id else { return [] }
        leaving.replied = true
        if error != nil || !(devices[id]?.connected ?? false) { return finishDisconnect() }
        return [.startTimer(.settle, after: settings.disconnectSettle)]
    }

    /// Ends a disconnection we asked for.
    mutating func finishDisconnect() -> [CentralAction] {
        guard case .disconnecting(let peer) = link else { return [] }
        link = .idle
        let ending = leaving
        leaving = Leaving()
        var actions: [CentralAction] = [.cancelTimer(.settle)]
        if ending.reported {
            actions.append(.report(.disconnected(peer, reason: ending.reason ?? "disconnected on request")))
        }
        // Quitting ends version-2 transfers; any other end of a link (a disconnect asked for
        // too) keeps them for a resume within the resume time-out, both ways: the peripheral
        // resumes from what this side told it, so this side must not forget it.
        actions += cleanUpLink(reason: "disconnected", keepTransfers: !isQuitting)
        actions += commands.finish(.disconnect, nil)
        if let delay = ending.retryAfter, automatic.target != nil {
            return actions + [.startTimer(.reconnect, after: delay)]
        }
        return actions + tryAutoConnect()
    }

    /// The program is quitting (the driver disconnects the peer itself): stop scanning, connect
    /// no more, and take the link's end as asked for, not as a loss to recover from.
    mutating func quitting() -> [CentralAction] {
        isQuitting = true
        automatic.cancel()
        scanning.resumeListing = false
        var actions: [CentralAction] = [.cancelTimer(.reconnect)]
        if scanning.state != .idle {
            scanning.stop()
            actions += [.cancelTimer(.scan), .stopDiscovery]
        }
        if let peer, !isLeaving {
            leaving = Leaving(reason: "disconnected: quitting", wasConnected: devices[peer.id]?.connected ?? false)
            link = .disconnecting(peer)
        }
        return actions
    }

    var isLeaving: Bool {
        if case .disconnecting = link { return true }
        return false
    }

    /// A characteristic object went away. When it is one of the link's, either the link is going
    /// down (BlueZ removes a remote's GATT objects around `Connected` turning false, in either
    /// order) or the peripheral's relay service is gone while the LE link stays up (relay-peripheral
    /// stopped or crashed). The settle timer tells them apart: still linked when it fires, the
    /// relay service is gone.
    mutating func relayCharacteristicRemoved(_ id: CharacteristicID) -> [CentralAction] {
        switch link {
        case .subscribing(_, let relay), .ready(_, let relay):
            guard id == relay.write || id == relay.notify, vanishedCharacteristic == nil else { return [] }
            vanishedCharacteristic = id
            return [.startTimer(.settle, after: settings.vanishSettle)]
        default:
            return []
        }
    }

    /// The settle timer: a disconnection we asked for goes on without `Connected` turning false,
    /// or a link whose relay characteristic vanished is still up (the relay service is gone).
    mutating func settleTimedOut() -> [CentralAction] {
        if case .disconnecting = link {
            return leaving.replied ? finishDisconnect() : []
        }
        guard vanishedCharacteristic != nil else { return [] }
        vanishedCharacteristic = nil
        return relayServiceGone()
    }

    /// The relay service (or a UART link's service) went away under a live link: the link is
    /// useless, so end it, and with `--reconnect` come back when a relay-peripheral serves again.
    mutating func relayServiceGone() -> [CentralAction] {
        let peer: Peer
        switch link {
        case .subscribing(let linkPeer, _), .ready(let linkPeer, _): peer = linkPeer
        default: return []
        }
        let uart = linkService == .nus
        let gone = uart ? "the UART service went away" : "the relay service went away"
        let reason = gone + (uart ? " (the device stopped its program?)" : " (relay-peripheral stopped or restarted?)")
        // Said at once (what was being received is lost now); the Disconnect then goes quietly.
        var actions: [CentralAction] = [.report(.disconnected(peer, reason: reason))]
        actions += cleanUpLink(reason: gone)
        actions += failConnect(.couldNotConnect(peer, reason: reason))
        var retry: Double?
        if settings.reconnect || automatic.target != nil {
            automatic.seek(.address(peer.address), persistent: true)
            retry = nextRetryDelay()
            actions.append(.report(.reconnecting(peer.address)))
        }
        return actions + leave(peer, reason: reason, reported: false, retryAfter: retry)
    }
}
