import RelayApp
import RelayBlueZ
import RelayProtocol

extension CentralSession {
    /// The service a listing scan looks for: the relay service, or the UART service with `--nus`.
    var listedService: BluetoothUUID { settings.uart ? UARTProfile.service : RelayProfile.service }

    /// Whether a device is a candidate: it advertises the listed service and the expected name
    /// (any name when `--nus` is given without `--name`).
    func isCandidate(_ device: DeviceInfo) -> Bool {
        (settings.name == nil || device.name == settings.name) && device.serviceUUIDs.contains(listedService)
    }

    /// Whether a device is the one a seeking scan looks for (a UART device by its name alone: a
    /// micro:bit advertises no service).
    func isSought(_ device: DeviceInfo, by target: SeekTarget) -> Bool {
        switch target {
        case .address(let address): return device.address == address
        case .name(let name):
            return device.name == name && (linkService == .nus || device.serviceUUIDs.contains(RelayProfile.service))
        }
    }

    /// The services discovery is filtered on for `purpose`: the listed one, the relay service
    /// when seeking a relay peripheral, none when seeking a UART device (it may advertise none).
    func discoveryServices(for purpose: ScanPurpose) -> [BluetoothUUID] {
        switch purpose {
        case .listing: return [listedService]
        case .seeking: return linkService == .nus ? [] : [RelayProfile.service]
        }
    }

    /// `AA:BB:… 'phone' (not named 'sample')`, for the "nothing found" report.
    static func whyNotCandidate(
        _ device: DeviceInfo, name: String?, service: BluetoothUUID = RelayProfile.service
    )
        -> String
    {
        var reasons: [String] = []
        if device.name == nil {
            reasons.append("no name yet")
        } else if let name, device.name != name {
            reasons.append("not named '\(name)'")
        }
        if !device.serviceUUIDs.contains(service) {
            reasons.append(service == RelayProfile.service ? "no relay service" : "no UART service")
        }
        return "\(device.address)" + (device.name.map { " '\($0)'" } ?? "") + " (" + reasons.joined(separator: ", ")
            + ")"
    }

    /// `scan`: done once discovery started (at once when it runs for a list already).
    mutating func startListing() throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        if let problem = adapterProblem { throw problem }
        if let peer, link != .idle { throw .scanWhileConnected(peer) }
        switch scanning.state {
        case .starting(.listing), .active(.listing):
            return .done([])
        case .starting(.seeking):
            automatic.cancel()
            scanning.serve(.listing)
            return .waiting(for: .scan, [.cancelTimer(.reconnect)])
        case .active(.seeking):
            automatic.cancel()
            scanning.serve(.listing)
            return .done([
                .cancelTimer(.reconnect), .cancelTimer(.scan),
                .report(.scanning(timeout: settings.scanTimeout, seeking: nil, services: [listedService])),
                .startTimer(.scan, after: settings.scanTimeout),
            ])
        case .idle:
            scanning.resumeListing = false
            return .waiting(for: .scan, beginScan(.listing))
        }
    }

    /// Starts discovery for `purpose` (the filter is always the relay service, LE only).
    mutating func beginScan(_ purpose: ScanPurpose) -> [CentralAction] {
        scanning.start(purpose)
        return [.startDiscovery(services: discoveryServices(for: purpose))]
    }

    func scanTimeout(for purpose: ScanPurpose) -> Double? {
        switch purpose {
        case .listing: return settings.scanTimeout
        case .seeking(_, let persistent): return persistent ? nil : settings.scanTimeout
        }
    }

    mutating func discoveryStarted() -> [CentralAction] {
        guard let purpose = scanning.started() else {
            // Stopped (or the adapter went away) while starting: undo it.
            return scanning.state == .idle ? [.stopDiscovery] : []
        }
        let timeout = scanTimeout(for: purpose)
        var seeking: SeekTarget? = nil
        if case .seeking(let target, _) = purpose { seeking = target }
        var actions: [CentralAction] = [
            .report(.scanning(timeout: timeout, seeking: seeking, services: discoveryServices(for: purpose)))
        ]
        if let timeout { actions.append(.startTimer(.scan, after: timeout)) }
        actions += commands.finish(.scan, nil)
        return actions
    }

    mutating func discoveryFailed(_ error: BlueZError) -> [CentralAction] {
        guard case .starting(let purpose) = scanning.state else { return [] }
        if error.kind == .inProgress { return discoveryStarted() }
        scanning.stop()
        let problem = CentralProblem.scanFailed(error)
        var actions: [CentralAction] = [.report(.error(problem))]
        actions += commands.finish(.scan, problem)
        if case .seeking(_, let persistent) = purpose {
            if persistent {
                actions.append(.startTimer(.reconnect, after: settings.retryDelay * 2))
            } else {
                automatic.cancel()
                actions += failConnect(problem)
            }
        }
        return actions
    }

    mutating func scanTimedOut() -> [CentralAction] {
        guard case .active(let purpose) = scanning.state else { return [] }
        scanning.stop()
        let others =
            scanning.othersWhenNoneFound
        var actions: [CentralAction] = [
            .stopDiscovery, .report(.scanStopped(reason: .timeout, found: scanning.candidates.count, others: others)),
        ]
        if case .seeking(let target, _) = purpose {
            automatic.cancel()
            let problem = CentralProblem.nothingFound(linkService, target, seconds: Int(settings.scanTimeout))
            actions.append(.report(.error(problem)))
            actions += failConnect(problem)
        }
        return actions
    }

    /// `scan stop`: done at once.
    mutating func stopScanCommand() -> CommandStart<CentralAction, CentralWait> {
        scanning.resumeListing = false
        guard let purpose = scanning.state.purpose else { return .done([]) }
        scanning.stop()
        var actions: [CentralAction] = [
            .cancelTimer(.scan), .stopDiscovery,
            .report(.scanStopped(reason: .requested, found: scanning.candidates.count)),
        ]
        actions += commands.finish(.scan, .scanStoppedBeforeStart)
        if case .seeking(let target, _) = purpose {
            automatic.cancel()
            actions.append(.cancelTimer(.reconnect))
            actions += failConnect(.scanStoppedBeforeFound(target))
        }
        return .done(actions)
    }

    /// Scans for the automatic-connection target, when the adapter and the link allow it.
    mutating func tryAutoConnect() -> [CentralAction] {
        guard adapter == .poweredOn, link == .idle, let target = automatic.target else { return [] }
        switch scanning.state {
        case .idle:
            return beginScan(.seeking(target, persistent: automatic.persistent))
        case .starting(.listing), .active(.listing), .starting(.seeking), .active(.seeking):
            return []
        }
    }

    mutating func deviceUpdated(_ device: DeviceInfo) -> [CentralAction] {
        devices[device.id] = device
        if let peer, peer.id == device.id { return linkDeviceUpdated(device) }
        guard let purpose = scanning.state.purpose else { return [] }
        var actions: [CentralAction] = []
        if isCandidate(device) {
            if let candidate = scanning.saw(device, name: device.name ?? settings.name ?? "") {
                actions.append(.report(.discovered(candidate)))
            }
        } else if purpose == .listing {
            scanning.sawOther(device.address, Self.whyNotCandidate(device, name: settings.name, service: listedService))
        }
        if case .seeking(let target, _) = purpose, isSought(device, by: target), link == .idle {
            scanning.stop()
            actions += [
                .cancelTimer(.scan), .stopDiscovery,
                .report(.scanStopped(reason: .connecting, found: scanning.candidates.count)),
            ]
            actions += beginConnect(Peer(id: device.id, address: device.address, name: device.name))
        }
        return actions
    }

    mutating func deviceRemoved(_ id: DeviceID) -> [CentralAction] {
        devices[id] = nil
        guard let peer, peer.id == id else { return [] }
        switch link {
        case .idle: return []
        case .disconnecting: return finishDisconnect()
        case .connecting(_, let seen):
            return (seen ? nil : dialAgain(peer, reason: .forgotten))
                ?? connectFailed("the device went away (bluetoothd removed it)")
        case .resolving, .subscribing, .ready: return linkLost(reason: "the device went away (bluetoothd removed it)")
        }
    }
}
