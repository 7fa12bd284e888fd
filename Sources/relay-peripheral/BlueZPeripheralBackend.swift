import RelayProtocol
import Shared

/// The peripheral's Bluetooth side on bluetoothd: one system-bus connection, the adapter
/// chosen with `--adapter` (or the first one), our GATT application and advertisement.
/// Everything bluetoothd reports becomes a `PeripheralInput` for the controller.
final class BlueZPeripheralBackend: PeripheralBackend {
    private let controller: PeripheralController
    private let loop: EventLoop
    private let choice: AdapterChoice?
    private let notifyPath: NotifyPath
    private var connection: DBusConnection?
    private var client: BlueZClient?
    private var ownerWatcher: NameOwnerWatcher?
    private var application: GattApplication?
    private var advertisement: LEAdvertisement?
    /// The adapter in use (path and name), while there is one.
    private var adapter: AdapterSnapshot?
    private var connectedDevices: [ObjectPath: BluetoothAddress] = [:]
    private var pendingUnregistrations = 0
    private var shutdownWaiters: [() -> Void] = []

    init(controller: PeripheralController, loop: EventLoop, adapter choice: AdapterChoice?, notifyPath: NotifyPath = .socket) {
        self.controller = controller
        self.loop = loop
        self.choice = choice
        self.notifyPath = notifyPath
    }

    /// Connects to the system bus (or `bus`, in tests) and starts following bluetoothd.
    func start(bus: DBusConnection.Bus = .system) {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(bus: bus, loop: loop)
        } catch {
            let detail = "cannot connect to the system D-Bus (\(error)): is dbus running? (systemctl start dbus)"
            controller.handle(.adapter(.notAvailable(detail), name: nil))
            return
        }
        StartupTrace.mark("bus connected (Hello answered)")
        self.connection = connection
        connection.onAccessDenied = { [weak self] call in self?.reportRefused(call) }
        let client = BlueZClient(connection: connection)
        self.client = client
        let application = GattApplication(client: client, root: "/org/relay/peripheral", services: [RelayGattProfile.localService(notifyPath: notifyPath)])
        application.onEvent = { [weak self] event in self?.handleServer(event) }
        self.application = application
        let advertisement = LEAdvertisement(
            client: client, path: "/org/relay/peripheral/advertisement0",
            data: RelayGattProfile.advertisement(name: controller.session.configuration.name))
        advertisement.onReleased = { [weak self] in self?.controller.handle(.advertisementReleased) }
        self.advertisement = advertisement
        client.onEvent = { [weak self] event in self?.handleBlueZ(event) }
        client.start()
        ownerWatcher = NameOwnerWatcher(connection: connection, name: BlueZInterface.service) { [weak self] state in
            if state == .unowned { self?.evaluateAdapter() }
        }
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

    /// Refused calls from other bus clients, reported at most 3 per 5 s.
    private var refusedCalls = RateLimiter(limit: 3, per: 5)

    /// Another bus client called our objects (only bluetoothd may): the bus layer answered
    /// AccessDenied; this reports it, rate-limited so that a flood cannot drown the REPL.
    private func reportRefused(_ call: DeniedCall) {
        guard case .allow(let suppressed) = refusedCalls.admit(now: loop.now) else { return }
        let member = (call.interface.map { $0 + "." } ?? "") + call.member
        let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
        let text = "refused \(member) on \(call.path) from \(call.sender): only bluetoothd may call the peripheral's objects\(more)"
        controller.perform([.report(.error(text, from: nil))])
    }

    // MARK: Adapter

    private func handleBlueZ(_ event: BlueZEvent) {
        switch event {
        case .serviceVanished, .objectsLoaded:
            if case .objectsLoaded = event { StartupTrace.once("GetManagedObjects answered") }
            evaluateAdapter()
        case .adapter:
            evaluateAdapter()
        case .device(let deviceEvent):
            handleDevice(deviceEvent)
        case .problem(let error) where error.kind == .accessDenied:
            controller.handle(.adapter(.notPermitted(Self.notPermittedDetail), name: nil))
        case .serviceAppeared:
            StartupTrace.once("org.bluez owner known")
        case .gatt, .problem:
            break
        }
    }

    static let notPermittedDetail =
        "the system bus policy does not let this user talk to bluetoothd: run as root or as a member of the "
        + "'bluetooth' group (policy: /etc/dbus-1/system.d/bluetooth.conf)"

    private func evaluateAdapter() {
        guard let client else { return }
        guard client.owner != nil else {
            dropAdapter()
            return controller.handle(.adapter(.notAvailable(
                "bluetoothd is not running (nobody owns org.bluez on the system bus): start it, e.g. systemctl start bluetooth"),
                name: nil))
        }
        guard client.isLoaded else { return }
        let adapters = client.tree.adapters
        let selected: AdapterSnapshot?
        switch choice {
        case .name(let name)?: selected = adapters.first { $0.name == name }
        case .address(let address)?: selected = adapters.first { $0.address == address }
        case nil: selected = adapters.first { $0.advertising != nil && $0.hasGattManager } ?? adapters.first
        }
        guard let selected else {
            dropAdapter()
            let known = adapters.map(\.description).joined(separator: ", ")
            let detail = choice.map { "adapter \($0) not found (bluetoothd has: \(known.isEmpty ? "none" : known))" }
                ?? "bluetoothd has no adapter: plug one in or load its driver, then check with 'bluetoothctl list'"
            return controller.handle(.adapter(.notAvailable(detail), name: nil))
        }
        if let current = adapter, current.path != selected.path { dropAdapter() }
        adapter = selected
        guard selected.hasGattManager, selected.advertising != nil else {
            return controller.handle(.adapter(.notAvailable(
                "\(selected.name) offers no GattManager1/LEAdvertisingManager1: it needs Bluetooth LE "
                    + "(check ControllerMode in /etc/bluetooth/main.conf and run bluetoothd 5.50 or newer)"),
                name: selected.name))
        }
        if selected.powered { StartupTrace.once("adapter found, powered") }
        controller.handle(.adapter(selected.powered ? .poweredOn : .poweredOff, name: selected.name))
        if selected.powered {
            for device in client.tree.devices(on: selected.path) where device.connected { noteDevice(device) }
        }
    }

    /// The adapter went away: our registrations on it are gone too.
    private func dropAdapter() {
        adapter = nil
        connectedDevices = [:]
        application?.registration?.unregister()
        advertisement?.registration?.unregister()
    }

    var adapterDescription: String? { adapter.map { "\($0.name) \($0.address)" } }

    // MARK: Centrals

    private func handleDevice(_ event: DeviceEvent) {
        switch event {
        case .added(let device), .changed(let device, _):
            noteDevice(device)
        case .removed(let path, let address):
            if let known = connectedDevices.removeValue(forKey: path) ?? address {
                controller.handle(.disconnected(known))
            }
        case .disconnected(let path, _, _):
            if let known = connectedDevices.removeValue(forKey: path) { controller.handle(.disconnected(known)) }
        }
    }

    private func noteDevice(_ device: DeviceSnapshot) {
        guard let adapter, device.adapter == adapter.path else { return }
        if device.connected {
            guard connectedDevices[device.path] == nil else { return }
            connectedDevices[device.path] = device.address
            controller.handle(.connected(device.address))
        } else if connectedDevices.removeValue(forKey: device.path) != nil {
            controller.handle(.disconnected(device.address))
        }
    }

    // MARK: GATT server

    private static func mtu(_ request: GattRequest) -> MTU? {
        request.mtu.map { MTU(clamping: Int($0.rawValue)) }
    }

    private func handleServer(_ event: GattServerEvent) {
        switch event {
        case .written(let uuid, let value, let request) where uuid == RelayGattProfile.write:
            controller.handle(.written(value, from: request.deviceAddress, mtu: Self.mtu(request), time: loop.now))
        case .read(_, let request):
            if let address = request.deviceAddress, let mtu = Self.mtu(request) { controller.handle(.mtu(address, mtu)) }
        case .notifyStarted(let uuid) where uuid == RelayGattProfile.notify:
            controller.handle(.notifyStarted(from: nil, mtu: nil))
        case .notifyAcquired(let uuid, let request) where uuid == RelayGattProfile.notify:
            controller.handle(.notifyStarted(from: request.deviceAddress, mtu: Self.mtu(request)))
        case .notifyStopped(let uuid), .notifyReleased(let uuid):
            if uuid == RelayGattProfile.notify, application?.isNotifying(uuid) != true {
                controller.handle(.notifyStopped(from: nil))
            }
        case .notifyWritable:
            controller.backendWritable()
        case .written, .notifyStarted, .notifyAcquired, .writeAcquired, .writeReleased, .confirmed, .unregistered:
            break
        }
    }

    // MARK: PeripheralBackend

    func registerApplication(_ ticket: RegistrationTicket) {
        guard let application, let adapter else {
            return controller.handle(.applicationFailed(ticket, "no adapter to register the GATT service on"))
        }
        StartupTrace.once("RegisterApplication sent")
        application.register(adapter: adapter.path) { [weak self] result in
            guard let self else { return }
            StartupTrace.once("RegisterApplication answered")
            switch result {
            case .success:
                self.controller.handle(.applicationRegistered(ticket))
            case .failure(let error):
                if error.kind == .accessDenied {
                    self.controller.handle(.adapter(.notPermitted(Self.notPermittedDetail), name: adapter.name))
                }
                self.controller.handle(.applicationFailed(ticket, "cannot register the GATT service on \(adapter.name): \(error)"))
            }
        }
    }

    func unregisterApplication() {
        guard let registration = application?.registration else { return }
        track(registration)
    }

    func registerAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName) {
        guard let advertisement, let adapter else {
            return controller.handle(.advertisementFailed(ticket, "no adapter to advertise on"))
        }
        advertisement.data = RelayGattProfile.advertisement(name: name)
        StartupTrace.once("RegisterAdvertisement sent")
        advertisement.register(adapter: adapter.path) { [weak self] result in
            guard let self else { return }
            StartupTrace.once("RegisterAdvertisement answered")
            switch result {
            case .success:
                self.controller.handle(.advertisementRegistered(ticket))
            case .failure(let error):
                self.controller.handle(.advertisementFailed(ticket, self.advertisingFailure(error, adapter: adapter)))
            }
        }
    }

    /// `Failed to register advertisement` and friends, with what the adapter supports and the fix.
    private func advertisingFailure(_ error: BlueZError, adapter: AdapterSnapshot) -> String {
        let current = client?.tree.adapter(at: adapter.path) ?? adapter
        let supports = current.advertising.map { " — \(adapter.name) advertising: \($0.summary)" } ?? ""
        let fix: String
        switch error.kind {
        case .notPermitted:
            fix = "every advertising slot is in use: stop other advertisers (another relay-peripheral, "
                + "'bluetoothctl advertise off') and type start again"
        case .failed, .invalidLength, .invalidArguments:
            fix = "the adapter refused the advertisement: try a shorter --name, check that the adapter supports LE "
                + "advertising (btmgmt info) and see bluetoothd's log"
        case .accessDenied:
            fix = Self.notPermittedDetail
        default:
            fix = error.hint.isEmpty ? "see bluetoothd's log (journalctl -u bluetooth)" : error.hint
        }
        return "cannot advertise as '\(advertisement?.data.localName ?? "")' on \(adapter.name): "
            + "\(error.name): \(error.message)\(supports); fix: \(fix)"
    }

    func unregisterAdvertisement() {
        guard let registration = advertisement?.registration else { return }
        track(registration)
    }

    private func track(_ registration: BlueZRegistration) {
        pendingUnregistrations += 1
        registration.unregister { [weak self] _ in
            guard let self else { return }
            self.pendingUnregistrations -= 1
            if self.pendingUnregistrations == 0 { self.finishShutdownWaiters() }
        }
    }

    var pacesItself: Bool {
        application?.notifyLinkMTU(RelayGattProfile.notify) != nil
    }

    func notify(_ value: [UInt8]) -> BackendSendResult {
        guard let application else { return .failed("not connected to bluetoothd") }
        switch application.notify(value, on: RelayGattProfile.notify) {
        case .sent: return .sent
        case .wouldBlock: return .wouldBlock
        case .notSubscribed: return .failed("no central is subscribed any more")
        case .failed(let error): return .failed("\(error)")
        }
    }

    func setNotifyReadValue(_ value: [UInt8]) {
        application?.setValue(value, for: RelayGattProfile.notify)
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
