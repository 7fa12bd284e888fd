import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Connecting: the command, `Connect` and its outcome, retries with back-off.
extension CentralSession {
    /// `connect` (`service` `.nus`: `connect --nus`, or any `connect` with `--nus`).
    mutating func connectCommand(
        _ target: ConnectTarget, service: MessageVia
    ) throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        if let problem = adapterProblem { throw problem }
        if let peer {
            if case .disconnecting = link { throw .stillDisconnecting(peer) }
            throw .alreadyConnected(peer)
        }
        let device: DeviceInfo?
        let sought: BluetoothAddress
        switch target {
        case .index(let index):
            guard scanning.candidates.indices.contains(index) else {
                throw .noCandidate(index: index, count: scanning.candidates.count)
            }
            // bluetoothd forgets a device some time after a scan (or when an attempt to
            // connect ended unanswered): then it is sought again by its address.
            let candidate = scanning.candidates[index]
            device = devices[candidate.id]
            sought = candidate.address
        case .address(let address):
            device = devices.values.first { $0.address == address }
            sought = address
        }
        connectUntil = now + settings.connectTimeout
        automatic.cancel()
        linkService = service
        var actions: [CentralAction] = [.cancelTimer(.reconnect)]
        guard let device else {
            // Unknown address: scan for it, connect when it shows up.
            return .waiting(for: .connect, actions + seek(sought))
        }
        if scanning.state != .idle {
            scanning.stop()
            actions += [
                .cancelTimer(.scan), .stopDiscovery,
                .report(.scanStopped(reason: .connecting, found: scanning.candidates.count)),
            ]
            actions += commands.finish(.scan, .scanCancelledByConnect)
        }
        return .waiting(
            for: .connect, actions + beginConnect(Peer(id: device.id, address: device.address, name: device.name)))
    }

    /// Scans for `address` and connects to it when it shows up (`connect` of a device bluetoothd
    /// does not know, or no longer: it forgets one after a scan or an unanswered attempt).
    mutating func seek(_ address: BluetoothAddress) -> [CentralAction] {
        automatic.seek(.address(address), persistent: false)
        let seeking = ScanPurpose.seeking(.address(address), persistent: false)
        switch scanning.state {
        case .idle:
            return beginScan(seeking)
        case .starting:
            scanning.serve(seeking)
            return []
        case .active(let running):
            let services = discoveryServices(for: seeking)
            if services != discoveryServices(for: running) {
                // A listing scan's filter would hide the device (`connect --nus` during `scan`).
                return [.cancelTimer(.scan), .stopDiscovery] + beginScan(seeking)
            }
            scanning.serve(seeking)
            return [.report(.scanning(timeout: nil, seeking: .address(address), services: services))]
        }
    }

    mutating func beginConnect(_ peer: Peer) -> [CentralAction] {
        let seen = devices[peer.id]?.connected ?? false
        link = .connecting(peer, seenConnected: seen)
        pairing.newLink()
        var actions: [CentralAction] = [.cancelTimer(.reconnect), .report(.connecting(peer))]
        if seen { actions.append(.report(.connected(peer))) }
        actions.append(.connect(peer.id, timeout: settings.connectTimeout))
        return actions
    }

    /// A `Device1` change of the link's peer.
    mutating func linkDeviceUpdated(_ device: DeviceInfo) -> [CentralAction] {
        switch link {
        case .idle:
            return []
        case .connecting(let peer, let seen):
            var actions: [CentralAction] = []
            if device.connected && !seen {
                link = .connecting(peer, seenConnected: true)
                actions.append(.report(.connected(peer)))
            }
            if device.connected && device.servicesResolved {
                link = .resolving(peer)
                actions.append(.findCharacteristics(peer.id))
            } else if !device.connected && seen {
                actions += connectFailed("the connection dropped while connecting")
            }
            return actions
        case .resolving, .subscribing, .ready:
            if !device.connected {
                return linkLost(reason: "connection lost (the peripheral disconnected, stopped or went out of range)")
            }
            return []
        case .disconnecting:
            return leavingDeviceUpdated(device)
        }
    }

    mutating func connectFinished(_ id: DeviceID, _ error: BlueZError?) -> [CentralAction] {
        guard case .connecting(let peer, let seen) = link, peer.id == id else { return [] }
        if let error, error.kind != .alreadyConnected {
            if error.kind == .noReply {
                // bluetoothd is still trying: Disconnect cancels that attempt, so the next
                // Connect is not refused with "Operation already in progress".
                return cancelConnect(
                    peer, seen: seen, CentralProblem.connectReason(error, timeout: settings.connectTimeout))
            }
            if !seen, Self.isUnanswered(error), let again = dialAgain(peer, reason: .unanswered(error.description)) {
                return again
            }
            return connectFailed(CentralProblem.connectReason(error, timeout: settings.connectTimeout))
        }
        var actions: [CentralAction] = []
        if !seen {
            link = .connecting(peer, seenConnected: true)
            actions.append(.report(.connected(peer)))
        }
        if let device = devices[id], device.servicesResolved {
            link = .resolving(peer)
            actions.append(.findCharacteristics(id))
        }
        return actions
    }

    /// Whether a failed `Connect` means the peripheral did not take the connection in time (Linux
    /// ended the attempt), rather than a refusal or a local problem.
    static func isUnanswered(_ error: BlueZError) -> Bool {
        switch error.kind {
        case .connectionAttemptFailed, .canceled: return true
        case .failed: return error.message.lowercased().contains("abort")
        default: return false
        }
    }

    /// The attempt of a `connect` command ended unanswered (before any `connected`): Linux 6.1
    /// gives an LE connection attempt 4 s (`HCI_LE_AUTOCONN_TIMEOUT`), and a peripheral taking
    /// a class dialling at once takes one central each time it advertises again (a second or
    /// two apart on a legacy adapter), so the others' attempts end before their turn; bluetoothd
    /// then forgets the device, before or after it answers `Connect`. While the command's time
    /// lasts (`settings.connectTimeout` from the command: a new attempt starts only within it),
    /// say so once and seek the address again: the device is dialled when a scan hears it, so
    /// one ended attempt is one `redial` whichever comes first, the answer or the removal. nil
    /// when that time is up or no command waits (`--connect` at start-up fails as before;
    /// `--reconnect` and resumes have their own back-off).
    mutating func dialAgain(_ peer: Peer, reason: RedialReason) -> [CentralAction]? {
        guard commands.isWaiting(for: .connect), let until = connectUntil, now + 1 < until else { return nil }
        link = .idle
        return [.report(.redial(peer, reason: reason, remaining: until - now))] + seek(peer.address)
    }

    /// A `Connect` failed: report it, fail `connect`, and retry after a back-off when the
    /// connection is automatic (`--reconnect`, a resume).
    mutating func connectFailed(_ reason: String) -> [CentralAction] {
        guard let peer else { return [] }
        link = .idle
        let retry = nextRetryDelay()
        let problem = CentralProblem.couldNotConnect(peer, reason: reason, retryIn: retry)
        var actions: [CentralAction] = [.report(.error(problem))]
        actions += failConnect(problem)
        if let retry { actions.append(.startTimer(.reconnect, after: retry)) }
        return actions
    }

    /// A `Connect` that bluetoothd may still be working on failed (our call timed out): report
    /// it, fail `connect`, and cancel the attempt with `Disconnect`; an automatic connection is
    /// retried after a back-off once that is answered.
    mutating func cancelConnect(_ peer: Peer, seen: Bool, _ reason: String) -> [CentralAction] {
        let retry = nextRetryDelay()
        let problem = CentralProblem.couldNotConnect(peer, reason: reason, retryIn: retry)
        let actions: [CentralAction] = [.report(.error(problem))] + failConnect(problem)
        return actions + leave(peer, reason: "connection attempt cancelled", reported: seen, retryAfter: retry)
    }

    /// The pause before the next automatic attempt (1, 2, 4, then 5 s), counting this failure;
    /// nil (and no more automatic connection) when the connection is not automatic.
    mutating func nextRetryDelay() -> Double? {
        guard automatic.target != nil, automatic.persistent else {
            automatic.cancel()
            return nil
        }
        return Self.retryBackoff(attempt: automatic.retried(), first: settings.retryDelay)
    }

    /// Fails a pending `connect` command.
    mutating func failConnect(_ problem: CentralProblem) -> [CentralAction] {
        connectUntil = nil
        return commands.finish(.connect, problem)
    }
}
