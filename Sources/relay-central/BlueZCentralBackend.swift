import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The central's Bluetooth side on bluetoothd: one system-bus connection, the adapter chosen
/// with `--adapter` (or the first one), discovery, the link's calls and sockets. Every call's
/// outcome and every change bluetoothd reports becomes a `CentralInput` for the driver.
final class BlueZCentralBackend: CentralBackend {
    private unowned let driver: CentralDriver
    private let loop: EventLoop
    private let choice: AdapterChoice?
    private let bus: BlueZBus
    private var client: BlueZClient?
    /// The adapter in use: only its objects' changes are heard (`BlueZClient.follow`).
    private var adapter: AdapterID? { didSet { client?.follow(adapter: adapter) } }
    private var writeLink: AcquiredLink?
    /// The L2CAP lane: the channel opening, then the open one.
    private let laneSocket: CentralLaneSocket
    /// The `AcquireNotify` socket, read on its own thread (`--notify-path socket`).
    private var notifySocket: NotificationSocket?
    /// The pairing agent (made at the first pairing) and the passkey request it holds.
    private var agent: PairingAgent?
    private var passkeyReply: PasskeyReply?
    /// Quitting: the device whose `Connected` turning false is awaited, the bound, and what follows.
    private var shutdownWait: (device: DeviceID, timer: EventLoop.Token, done: () -> Void)?
    /// The latest `Connect` call: the session dials a device again once an attempt ended
    /// unanswered, and the earlier call's late answer (our time-out, or bluetoothd's) is of an
    /// attempt already over, not of the one in progress.
    private var connectCalls = 0

    init(driver: CentralDriver, loop: EventLoop, adapter choice: AdapterChoice?, bus: BlueZBus = .system) {
        self.driver = driver
        self.loop = loop
        self.choice = choice
        self.bus = bus
        laneSocket = CentralLaneSocket(driver: driver, loop: loop)
    }

    func start() {
        do {
            let client = try BlueZClient.connect(to: bus, loop: loop)
            client.onEvent = { [weak self] event in self?.handle(event) }
            self.client = client
            client.start()
        } catch {
            driver.feed(.adapter(.unavailable(AdapterProblem(error)), nil))
        }
    }

    // MARK: Discovery

    func startDiscovery(services: [BluetoothUUID]) {
        guard let client, let adapter else { return driver.feed(.discoveryFailed(BlueZError(.gone, "no adapter"))) }
        let filter = DiscoveryFilter(uuids: services, transport: .le)
        client.setDiscoveryFilter(filter, adapter: adapter) { [weak self] result in
            if let error = result.failure { return self?.driver.feed(.discoveryFailed(error)) ?? () }
            client.startDiscovery(adapter: adapter) { [weak self] result in
                guard let self else { return }
                if let error = result.failure { return self.driver.feed(.discoveryFailed(error)) }
                self.driver.feed(.discoveryStarted)
                // Devices bluetoothd already knows and that advertise again only change RSSI.
                for device in client.tree.devices(on: adapter) { self.driver.feed(.deviceUpdated(DeviceInfo(device))) }
            }
        }
    }

    func stopDiscovery() {
        if let client, let adapter { client.stopDiscovery(adapter: adapter) { _ in } }
    }

    // MARK: The link

    func connect(_ device: DeviceID, timeout: Double) {
        guard let client else {
            return driver.feed(.connectFinished(device, BlueZError(.gone, "bluetoothd is not running")))
        }
        connectCalls += 1
        let call = connectCalls
        client.connect(device: device, timeout: timeout) { [weak self] result in
            guard let self, self.connectCalls == call else { return }
            self.driver.feed(.connectFinished(device, result.failure))
        }
    }

    func disconnect(_ device: DeviceID) {
        guard let client else { return driver.feed(.disconnectFinished(device, nil)) }
        client.disconnect(device: device) { [weak self] result in
            self?.driver.feed(.disconnectFinished(device, result.failure))
        }
    }

    func findCharacteristics(of device: DeviceID) {
        driver.feed(.characteristicsFound(device, client?.tree.characteristics(of: device) ?? []))
    }

    func startNotify(_ characteristic: CharacteristicID) {
        guard let client else { return }
        client.startNotify(characteristic: characteristic) { [weak self] result in
            self?.driver.feed(.notifyStarted(result.failure))
        }
    }

    func readMTU(_ characteristic: CharacteristicID) {
        driver.feed(.mtuRead(client?.tree.characteristic(characteristic)?.mtu))
    }

    func readValue(_ role: CharacteristicRole, of characteristic: CharacteristicID) {
        guard let client else {
            return driver.feed(.readFinished(role, .failure(BlueZError(.gone, "bluetoothd is not running"))))
        }
        client.readValue(characteristic: characteristic) { [weak self] result in
            self?.driver.feed(.readFinished(role, result))
        }
    }

    func releaseSockets() {
        closeLane()
        writeLink?.close()
        writeLink = nil
        notifySocket?.close()
        notifySocket = nil
    }

    // MARK: The L2CAP lane

    func readLanePSM(_ characteristic: CharacteristicID) {
        guard let client else {
            return driver.feed(.lanePSMRead(.failure(BlueZError(.gone, "bluetoothd is not running"))))
        }
        client.readValue(characteristic: characteristic) { [weak self] result in
            self?.driver.feed(.lanePSMRead(result))
        }
    }

    func openLane(to device: DeviceID, psm: LanePSM, security: LaneSecurity, timeout: Double) {
        laneSocket.close()
        guard let client, let adapter, let local = client.tree.adapter(adapter), let peer = client.tree.device(device)
        else {
            return loop.post { [weak self] in self?.driver.feed(.laneOpenFailed(.couldNotOpen("no adapter or device")))
            }
        }
        laneSocket.open(
            from: (local.address, LEAddressType(bluez: local.addressType)),
            to: (peer.address, LEAddressType(bluez: peer.addressType)), psm: psm, security: security, timeout: timeout)
    }

    func closeLane() {
        laneSocket.close()
    }

    func shutdown(disconnecting device: DeviceID?, then done: @escaping () -> Void) {
        releaseSockets()
        guard let client, let device else { return done() }
        client.disconnect(device: device) { [weak self] _ in
            guard let self else { return done() }
            self.awaitDisconnected(device, then: done)
        }
    }

    /// How long quitting waits, after bluetoothd answered `Disconnect`, for it to say the device
    /// is no longer connected.
    static let disconnectedSettle = 2.0

    /// bluetoothd answers `Disconnect` before it says the device's `Connected` turned false (it
    /// sends property changes when idle), and the session says the link's end (`disconnected:
    /// quitting`) from that change: quitting waits for it, at most `disconnectedSettle` s (a
    /// CI run printed no such line when the answer came first).
    private func awaitDisconnected(_ device: DeviceID, then done: @escaping () -> Void) {
        guard client?.tree.device(device)?.connected == true else { return done() }
        let timer = loop.schedule(after: Self.disconnectedSettle) { [weak self] in self?.endShutdown() }
        shutdownWait = (device, timer, done)
    }

    private func endShutdown() {
        guard let wait = shutdownWait else { return }
        shutdownWait = nil
        loop.cancel(wait.timer)
        wait.done()
    }

    // MARK: Pairing

    /// Registers our agent (not as the default one: a pairing we start with `Device1.Pair` asks
    /// the caller's agent, and pairings others start are left to the desktop's), then pairs.
    func pair(_ device: DeviceID) {
        guard let client else {
            return driver.feed(.pairFinished(device, BlueZError(.gone, "bluetoothd is not running")))
        }
        let agent =
            self.agent ?? PairingAgent(client: client, capability: .keyboardOnly, path: "/org/relay/central/agent")
        if self.agent == nil {
            agent.onRequest = { [weak self] request in self?.handleAgent(request) }
            self.agent = agent
        }
        let pair = { [weak self] in
            client.pair(device: device) { result in self?.driver.feed(.pairFinished(device, result.failure)) }
        }
        guard !agent.isRegistered else { return pair() }
        agent.register(asDefault: false) { [weak self] result in
            if let error = result.failure { return self?.driver.feed(.pairFinished(device, error)) ?? () }
            pair()
        }
    }

    func answerPasskey(_ passkey: Passkey) {
        passkeyReply?.answer(passkey)
        passkeyReply = nil
    }

    func unpair(_ device: DeviceID) {
        guard let client, let adapter else {
            return driver.feed(.unpairFinished(device, BlueZError(.gone, "no adapter")))
        }
        client.removeDevice(device, adapter: adapter) { [weak self] result in
            self?.driver.feed(.unpairFinished(device, result.failure))
        }
    }

    private func handleAgent(_ request: AgentRequest) {
        switch request {
        case .requestPasskey(let device, let reply):
            passkeyReply?.refuse()
            passkeyReply = reply
            driver.feed(.passkeyRequested(device))
        case .cancelled, .released:
            passkeyReply?.refuse()
            passkeyReply = nil
            driver.feed(.pairingCancelled)
        case .displayPasskey, .refusedWithoutPasskey:
            break  // a KeyboardOnly agent types passkeys; it is never asked to show one
        }
    }

    // MARK: Sockets

    func acquireWrite(_ characteristic: CharacteristicID) {
        guard let client else {
            return driver.feed(.writeAcquireFailed(BlueZError(.gone, "bluetoothd is not running")))
        }
        client.acquireWrite(characteristic: characteristic) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let link):
                self.writeLink?.close()
                self.writeLink = link
                link.onEvent = { [weak self, weak link] event in
                    guard let self, let link, self.writeLink === link else { return }
                    self.writeSocketEvent(event, of: characteristic)
                }
                self.driver.feed(.writeAcquired(link.mtu))
            case .failure(let error):
                self.driver.feed(.writeAcquireFailed(error))
            }
        }
    }

    /// `AcquireNotify` when the characteristic offers it (`NotifyAcquired` present); the socket is
    /// handed to a `NotificationSocket` so that it is read even while the loop is busy.
    func acquireNotify(_ characteristic: CharacteristicID) {
        guard let client else {
            return driver.feed(.notifyAcquireFailed(BlueZError(.gone, "bluetoothd is not running")))
        }
        guard client.tree.characteristic(characteristic)?.notifyAcquired != nil else {
            return driver.feed(.notifyAcquireFailed(BlueZError(.notSupported, "no NotifyAcquired property")))
        }
        client.acquireNotify(characteristic: characteristic) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let link):
                let socket: NotificationSocket
                do {
                    socket = try NotificationSocket(taking: link, loop: self.loop)
                } catch {
                    link.close()
                    return self.driver.feed(.notifyAcquireFailed(BlueZError(.failed, "notification reader: \(error)")))
                }
                self.notifySocket?.close()
                self.notifySocket = socket
                socket.onEvent = { [weak self, weak socket] event in
                    guard let self, let socket, self.notifySocket === socket else { return }
                    self.notifySocketEvent(event)
                }
                self.driver.feed(.notifyAcquired)
            case .failure(let error):
                self.driver.feed(.notifyAcquireFailed(error))
            }
        }
    }

    private func notifySocketEvent(_ event: AcquiredLink.Event) {
        switch event {
        case .received(let value): driver.feed(.notification(value))
        case .writable: break
        case .closed:
            notifySocket = nil
            driver.feed(.notifySocketClosed)
        }
    }

    func send(_ value: [UInt8], on carrier: Carrier) {
        switch carrier {
        case .lane:
            laneSocket.send(value)
        case .gatt(_, .socket):
            guard let link = writeLink else { return driver.feed(.sendFinished(.failed(.closed(carrier)))) }
            switch link.send(value) {
            case .sent: driver.feed(.sendFinished(.sent))
            case .wouldBlock: driver.feed(.sendFinished(.full))
            case .failed(let code): driver.feed(.sendFinished(.failed(.socketFailed(carrier, errno: code))))
            }
        case .gatt(let characteristic, let path):
            guard let client else {
                return driver.feed(.sendFinished(.failed(.bluez(BlueZError(.gone, "bluetoothd is not running")))))
            }
            let type: WriteType = path == .writeRequest ? .request : .command
            client.writeValue(value, characteristic: characteristic, type: type) { [weak self] result in
                self?.driver.feed(.sendFinished(result.failure.map { .failed(.bluez($0)) } ?? .sent))
            }
        }
    }

    private func writeSocketEvent(_ event: AcquiredLink.Event, of characteristic: CharacteristicID) {
        switch event {
        case .received: break
        case .writable: driver.feed(.carrierWritable(.gatt(characteristic, .socket)))
        case .closed:
            writeLink = nil
            driver.feed(.writeSocketClosed)
        }
    }

    // MARK: What bluetoothd reports

    private func handle(_ event: BlueZEvent) {
        switch event {
        case .serviceAppeared: break
        case .serviceVanished:
            endShutdown()
            adapter = nil
            driver.feed(.adapter(.unavailable(.bluetoothdNotRunning), nil))
        case .objectsLoaded, .adapter: selectAdapter()
        case .device(.added(let device)), .device(.changed(let device, _)):
            guard device.adapterID == adapter else { return }
            driver.feed(.deviceUpdated(DeviceInfo(device)))
            if shutdownWait?.device == device.id, !device.connected { endShutdown() }
        case .device(.removed(let id, _)):
            driver.feed(.deviceRemoved(id))
            if shutdownWait?.device == id { endShutdown() }
        case .device(.disconnected): break
        case .gatt(.valueChanged(let characteristic, let value)):
            driver.feed(.valueChanged(characteristic.id, value))
        case .gatt(.characteristicChanged(let characteristic, let changed)):
            guard changed.contains("MTU"), let mtu = characteristic.mtu else { return }
            driver.feed(.mtuChanged(characteristic.id, mtu))
        case .gatt(.characteristicRemoved(let id)):
            // While bluetoothd goes away every object is removed: that is reported as such.
            guard client?.owner != nil else { return }
            driver.feed(.relayCharacteristicRemoved(id))
        case .gatt: break
        case .problem(let error):
            if error.kind == .accessDenied { driver.feed(.adapter(.unavailable(.accessDenied), nil)) }
        }
    }

    private func selectAdapter() {
        guard let client, client.isAvailable else { return }
        switch AdapterSelection.choose(choice, from: client.tree.adapters) {
        case .success(let chosen):
            adapter = chosen.id
            driver.feed(.adapter(chosen.powered ? .poweredOn : .poweredOff, AdapterInfo(chosen)))
        case .failure(let problem):
            adapter = nil
            driver.feed(.adapter(.unavailable(problem), nil))
        }
    }
}

extension DeviceInfo {
    /// The session's view of a BlueZ device snapshot (RSSI 127 is HCI's "not available").
    init(_ device: DeviceSnapshot) {
        self.init(
            id: device.id, address: device.address, name: device.name,
            rssi: device.rssi.flatMap { $0 == 127 ? nil : Int($0) }, serviceUUIDs: device.uuids,
            connected: device.connected, servicesResolved: device.servicesResolved, paired: device.paired)
    }
}

extension Result {
    /// The error of a failed result, nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
