import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayRuntime

/// The peripheral's Bluetooth side on bluetoothd: one system-bus connection, the adapter
/// chosen with `--adapter` (or the first one with LE advertising), our GATT application and
/// advertisement. Everything bluetoothd reports becomes a `PeripheralInput` for the driver.
final class BlueZPeripheralBackend: PeripheralBackend {
    private unowned let driver: PeripheralDriver
    private let loop: EventLoop
    private let choice: AdapterChoice?
    private let notifyPath: NotifyPath
    /// What the GATT application and advertisement serve: name, interval, secure mode, the
    /// session characteristic (protocol 2), the lane, the UART service.
    private let settings: PeripheralSettings
    private var client: BlueZClient?
    private var application: GattApplication?
    private var advertisement: LEAdvertisement?
    /// The adapter in use: only its objects' changes are heard (`BlueZClient.follow`).
    private var adapter: AdapterSnapshot? { didSet { client?.follow(adapter: adapter?.id) } }
    private var connectedDevices: [DeviceID: BluetoothAddress] = [:]
    /// `--secure`: the pairing agent, and whether each device seen was `Paired` then.
    private var agent: PairingAgent?
    private var pairedDevices: [DeviceID: Bool] = [:]
    /// `--lane l2cap|auto`: the listener and the channels it accepted.
    private let laneSockets: PeripheralLaneSockets
    private var pendingUnregistrations = 0
    private var shutdownWaiters: [() -> Void] = []

    init(
        driver: PeripheralDriver, loop: EventLoop, settings: PeripheralSettings, adapter choice: AdapterChoice?,
        notifyPath: NotifyPath = .socket
    ) {
        self.driver = driver
        self.loop = loop
        self.settings = settings
        self.choice = choice
        self.notifyPath = notifyPath
        laneSockets = PeripheralLaneSockets(driver: driver, loop: loop)
    }

    /// Connects to the system bus (or `bus`, in tests) and starts following bluetoothd.
    func start(bus: BlueZBus = .system) {
        let client: BlueZClient
        do {
            client = try BlueZClient.connect(to: bus, loop: loop)
        } catch {
            return driver.feed(.adapter(.unavailable(AdapterProblem(error)), nil))
        }
        StartupTrace.mark("bus connected (Hello answered)")
        self.client = client
        client.onRefusedCall = { [weak self] call in
            guard let self else { return }
            self.driver.feed(.refusedCall(call))
        }
        let secure = settings.secure
        let psm = settings.lane.usesLane ? laneSockets.listen(secure: secure) : nil
        let offer = psm.map { LaneOffer(psm: $0, peripheral: settings.delivery.token) }
        let application = GattApplication(
            client: client, root: "/org/relay/peripheral",
            services: [
                PeripheralGattProfile.localService(
                    notifyPath: notifyPath, sessions: settings.delivery.speaksVersion2, secure: secure, lane: offer)
            ]
                + (settings.uart != nil ? [PeripheralGattProfile.uartService(secure: secure)] : []))
        if secure {
            let agent = PairingAgent(client: client, capability: .displayOnly, path: "/org/relay/peripheral/agent")
            agent.onRequest = { [weak self] request in self?.handleAgent(request) }
            self.agent = agent
        }
        application.onEvent = { [weak self] event in self?.handleServer(event) }
        self.application = application
        let advertisement = LEAdvertisement(
            client: client, path: "/org/relay/peripheral/advertisement0",
            data: PeripheralGattProfile.advertisement(
                name: settings.name, interval: settings.advertisingInterval))
        advertisement.onReleased = { [weak self] in self?.driver.feed(.advertisementReleased) }
        self.advertisement = advertisement
        client.onEvent = { [weak self] event in self?.handleBlueZ(event) }
        client.start()
        StartupTrace.mark("matches and GetNameOwner sent")
        // Put our objects on the bus while bluetoothd's answers are on their way, so that the
        // registrations do not wait for that work. A failure here is reported by the
        // registration, which exports again. The advertisement goes first: with no object
        // manager above it yet, nobody is sent an InterfacesAdded for it (GetManagedObjects
        // lists it all the same).
        try? advertisement.export()
        try? application.export()
        StartupTrace.mark("objects exported")
    }

    // MARK: The L2CAP lane

    func closeLane(_ id: LaneID) {
        laneSockets.close(id)
    }

    func disconnect(_ address: BluetoothAddress) {
        guard let client else { return }
        // A link that is already going needs nothing more; bluetoothd says when it has gone.
        for (device, known) in connectedDevices where known == address {
            client.disconnect(device: device) { _ in }
        }
    }

    // MARK: Adapter

    private func handleBlueZ(_ event: BlueZEvent) {
        switch event {
        case .serviceVanished, .objectsLoaded:
            if case .objectsLoaded = event {
                StartupTrace.once("GetManagedObjects answered")
                registerAgent()
            }
            evaluateAdapter()
        case .adapter:
            evaluateAdapter()
        case .device(let deviceEvent):
            handleDevice(deviceEvent)
        case .problem(let error) where error.kind == .accessDenied:
            driver.feed(.adapter(.unavailable(.accessDenied), nil))
        case .serviceAppeared:
            StartupTrace.once("org.bluez owner known")
        case .gatt, .problem:
            break
        }
    }

    private func evaluateAdapter() {
        guard let client else { return }
        guard client.owner != nil else {
            dropAdapter()
            return driver.feed(.adapter(.unavailable(.bluetoothdNotRunning), nil))
        }
        guard client.isLoaded else { return }
        let selected: AdapterSnapshot
        switch AdapterSelection.choose(
            choice, from: client.tree.adapters, preferring: { $0.advertising != nil && $0.hasGattManager })
        {
        case .success(let adapter): selected = adapter
        case .failure(let problem):
            dropAdapter()
            return driver.feed(.adapter(.unavailable(problem), nil))
        }
        if let current = adapter, current.id != selected.id { dropAdapter() }
        adapter = selected
        let info = AdapterInfo(selected)
        guard selected.hasGattManager, selected.advertising != nil else {
            return driver.feed(.adapter(.unavailable(.noLowEnergy(adapter: selected.name)), info))
        }
        // The lane listens on this adapter's own address before anything is registered on it.
        if let psm = laneSockets.settle(on: selected.addressType == "public" ? selected.address : nil) {
            let offer = LaneOffer(psm: psm, peripheral: settings.delivery.token)
            application?.setValue(offer.encoded, for: RelayCharacteristic.lane.uuid)
        }
        if selected.powered { StartupTrace.once("adapter found, powered") }
        driver.feed(.adapter(selected.powered ? .poweredOn : .poweredOff, info))
        if selected.powered {
            for device in client.tree.devices(on: selected.id) where device.connected { noteDevice(device) }
        }
    }

    /// The adapter went away: our registrations on it are gone too.
    private func dropAdapter() {
        adapter = nil
        connectedDevices = [:]
        application?.registration?.unregister()
        advertisement?.registration?.unregister()
    }

    // MARK: Centrals

    private func handleDevice(_ event: DeviceEvent) {
        switch event {
        case .added(let device), .changed(let device, _):
            noteDevice(device)
        case .removed(let id, _):
            // Only a central of ours: bluetoothd also removes other adapters' devices of the same
            // address (a stranger's temporary device 30 s after it left), which say nothing of ours.
            if let known = connectedDevices.removeValue(forKey: id) { driver.feed(.disconnected(known)) }
        case .disconnected(let id, _, _):
            if let known = connectedDevices.removeValue(forKey: id) { centralLeft(id, known) }
        }
    }

    private func noteDevice(_ device: DeviceSnapshot) {
        guard let adapter, device.adapterID == adapter.id else { return }
        if agent != nil {
            // A bond made while we watch is reported; one that existed before is not news.
            let wasPaired = pairedDevices.updateValue(device.paired, forKey: device.id)
            if device.paired, wasPaired == false {
                driver.feed(.pairing(.paired(connectedDevices[device.id] ?? device.address)))
            }
        }
        if device.connected {
            if let known = connectedDevices[device.id] {
                if known != device.address { driver.feed(.identityResolved(known, identity: device.address)) }
                return
            }
            connectedDevices[device.id] = device.address
            driver.feed(.connected(device.address))
        } else if let known = connectedDevices.removeValue(forKey: device.id) {
            centralLeft(device.id, known)
        }
    }

    /// A connected central left; in secure mode, one without a bond is a failed attempt.
    private func centralLeft(_ id: DeviceID, _ address: BluetoothAddress) {
        if agent != nil, pairedDevices[id] != true { driver.feed(.pairing(.leftUnpaired(address))) }
        driver.feed(.disconnected(address))
    }

    // MARK: Pairing (--secure)

    /// Registers the agent as the default one (bluetoothd asks the default agent about pairings
    /// a central starts), each time bluetoothd (re)appears.
    private func registerAgent() {
        agent?.register(asDefault: true) { [weak self] result in
            if case .failure(let error) = result { self?.driver.feed(.pairing(.agentFailed(error))) }
        }
    }

    private func handleAgent(_ request: AgentRequest) {
        /// The central behind a device object of our adapter (others are not ours to show).
        func central(_ id: DeviceID) -> BluetoothAddress? {
            guard let device = client?.tree.device(id), device.adapterID == adapter?.id else { return nil }
            return device.address
        }
        switch request {
        case .displayPasskey(let device, let passkey, let entered):
            if let address = central(device) {
                driver.feed(.pairing(.passkeyShown(address, passkey, entered: entered)))
            }
        case .refusedWithoutPasskey(let device):
            if let address = central(device) { driver.feed(.pairing(.refusedWithoutPasskey(address))) }
        case .requestPasskey(_, let reply):
            reply.refuse()  // a DisplayOnly agent shows passkeys; it never types one
        case .cancelled:
            driver.feed(.pairing(.cancelled))
        case .released:
            break
        }
    }

    // MARK: GATT server

    /// The central behind a GATT request, by the address it connected with: bluetoothd keeps a
    /// device's object path when a bond changes its address to the identity address, and every
    /// event of one connection names the central the same way.
    private func central(of request: GattRequest) -> BluetoothAddress? {
        request.deviceID.flatMap { connectedDevices[$0] } ?? request.deviceAddress
    }

    private func handleServer(_ event: GattServerEvent) {
        switch event {
        case .written(let uuid, let value, let request):
            let (from, mtu) = (central(of: request), request.mtu)
            switch RelayCharacteristic(uuid: uuid) {
            case .write?: driver.feed(.written(value, from: from, mtu: mtu))
            case .session?: driver.feed(.sessionWritten(value, from: from, mtu: mtu))
            case .uartRX?: driver.feed(.uartWritten(value, from: from, mtu: mtu))
            default: break
            }
        case .notifyStarted(let uuid):
            notificationsStarted(on: uuid, from: nil)
        case .notifyAcquired(let uuid, let request):
            notificationsStarted(on: uuid, from: request)
        case .read(let uuid, let request):
            if let address = central(of: request), let mtu = request.mtu { driver.feed(.mtu(address, mtu)) }
            if RelayCharacteristic(uuid: uuid) == .lane { driver.feed(.lanePSMRead(by: central(of: request))) }
        case .notifyStopped(let uuid), .notifyReleased(let uuid):
            guard application?.isNotifying(uuid) != true else { break }
            switch RelayCharacteristic(uuid: uuid) {
            case .notify?: driver.feed(.notifyStopped(from: nil))
            case .session?: driver.feed(.sessionNotifyStopped)
            case .uartTX?: driver.feed(.uartNotifyStopped)
            default: break
            }
        case .notifyWritable(let uuid):
            driver.feed(.carrierWritable(.notification(RelayCharacteristic(uuid: uuid) ?? .notify)))
        case .writeAcquired, .writeReleased, .confirmed, .unregistered:
            break
        }
    }

    /// Notifications of `uuid` were enabled: by `StartNotify` (no request: bluetoothd does not
    /// say who) or `AcquireNotify` (its request names the central and the MTU).
    private func notificationsStarted(on uuid: BluetoothUUID, from request: GattRequest?) {
        let from = request.flatMap(central(of:))
        let mtu = request?.mtu
        switch RelayCharacteristic(uuid: uuid) {
        case .notify?: driver.feed(.notifyStarted(from: from, mtu: mtu))
        case .session?:
            if let from, let mtu { driver.feed(.mtu(from, mtu)) }
            driver.feed(.sessionNotifyStarted(mtu: mtu))
        case .uartTX?: driver.feed(.uartNotifyStarted(from: from, mtu: mtu))
        default: break
        }
    }

    // MARK: PeripheralBackend

    func registerApplication(_ ticket: RegistrationTicket) {
        guard let application, let adapter else {
            return driver.feed(.applicationFailed(ticket, .noAdapter))
        }
        StartupTrace.once("RegisterApplication sent")
        application.register(adapter: adapter.id) { [weak self] result in
            StartupTrace.once("RegisterApplication answered")
            switch result {
            case .success: self?.driver.feed(.applicationRegistered(ticket))
            case .failure(let error):
                self?.driver.feed(.applicationFailed(ticket, .application(error, adapter: adapter.name)))
            }
        }
    }

    func unregisterApplication() {
        guard let registration = application?.registration else { return }
        track(registration)
    }

    func registerAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval) {
        guard let advertisement, let adapter else {
            return driver.feed(.advertisementFailed(ticket, .noAdapter))
        }
        advertisement.data = PeripheralGattProfile.advertisement(name: name, interval: interval)
        StartupTrace.once("RegisterAdvertisement sent")
        advertisement.register(adapter: adapter.id) { [weak self] result in
            guard let self else { return }
            StartupTrace.once("RegisterAdvertisement answered")
            switch result {
            case .success:
                self.driver.feed(.advertisementRegistered(ticket))
            case .failure(let error):
                let current = self.client?.tree.adapter(adapter.id) ?? adapter
                self.driver.feed(
                    .advertisementFailed(
                        ticket,
                        .advertisement(
                            error, adapter: adapter.name, name: name.text, supports: current.advertising?.summary)))
            }
        }
    }

    func unregisterAdvertisement() {
        guard let registration = advertisement?.registration else { return }
        track(registration)
    }

    func renewAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval) {
        guard let registration = advertisement?.registration else {
            return registerAdvertisement(ticket, name: name, interval: interval)
        }
        track(registration) { [weak self] in self?.registerAdvertisement(ticket, name: name, interval: interval) }
    }

    /// Unregisters `registration`, counted so that quitting waits for the answer; then `answered`.
    private func track(_ registration: BlueZRegistration, then answered: @escaping () -> Void = {}) {
        pendingUnregistrations += 1
        registration.unregister { [weak self] _ in
            guard let self else { return }
            self.pendingUnregistrations -= 1
            answered()
            if self.pendingUnregistrations == 0 { self.finishShutdownWaiters() }
        }
    }

    func send(_ values: [[UInt8]], on carrier: PeripheralCarrier) {
        switch carrier {
        case .lane(let id): laneSockets.send(values, on: id)
        case .notification(let characteristic): driver.feed(.sendFinished(carrier, notify(values, on: characteristic)))
        }
    }

    /// Notifies `values` in order on `characteristic` until the socket is full or one fails.
    private func notify(_ values: [[UInt8]], on characteristic: RelayCharacteristic) -> PeripheralSendOutcome {
        guard let application else { return .failed(.noBluetoothd) }
        // A value "of the write characteristic" is notified on the notify one, as the original apps do.
        let uuid = characteristic == .write ? RelayCharacteristic.notify.uuid : characteristic.uuid
        let paced = application.notifyLinkMTU(uuid) != nil
        var taken = 0
        for value in values {
            switch application.notify(value, on: uuid) {
            case .sent: taken += 1
            case .wouldBlock: return .took(taken, full: true, paced: paced)
            case .notSubscribed: return .failed(.noSubscriber)
            case .failed(let error): return .failed(.bluez(error))
            }
        }
        return .took(taken, full: false, paced: paced)
    }

    func setReadValue(_ value: [UInt8], of characteristic: RelayCharacteristic) {
        switch characteristic {
        case .write, .notify: application?.setValue(value, for: characteristic.uuid)
        case .session, .lane, .uartRX, .uartTX: break  // not set by the session
        }
    }

    func shutdown(then done: @escaping () -> Void) {
        if pendingUnregistrations == 0 {
            loop.post(done)
        } else {
            shutdownWaiters.append(done)
        }
    }

    private func finishShutdownWaiters() {
        let waiters = shutdownWaiters
        shutdownWaiters = []
        for waiter in waiters { loop.post(waiter) }
    }
}
