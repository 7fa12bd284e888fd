import RelayDBus
import RelayProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Our GATT server: an application (object manager root, services, characteristics) served on
/// the bus and registered with `GattManager1.RegisterApplication`.
///
/// Reads are answered from each characteristic's current value (honouring `offset`); writes
/// update it and are reported; `notify` updates it and hands it to BlueZ through
/// `PropertiesChanged` (sent only to bluetoothd) or the socket BlueZ acquired with
/// `AcquireNotify` (one socket per characteristic, whatever the BlueZ version). Only the
/// current owner of `org.bluez` may call the objects (the D-Bus layer's policy); others get
/// `AccessDenied`.
public final class GattApplication {
    /// The root path (object manager) of the application.
    public let root: ObjectPath
    /// The services served.
    public let services: [LocalService]
    /// Receives server events on the loop.
    public var onEvent: ((GattServerEvent) -> Void)?
    /// Send `Value` changes to every bus client instead of only to bluetoothd. Off by default:
    /// a unicast signal keeps other local processes from reading the notified values.
    public var broadcastsNotifications = false

    let client: BlueZClient
    var characteristics: [BluetoothUUID: CharacteristicState] = [:]
    private var objects: [ExportedObject] = []
    private var ownerObserver: Int?
    /// The current registration, if any.
    public private(set) var registration: BlueZRegistration?

    final class CharacteristicState {
        let spec: LocalCharacteristic
        let path: ObjectPath
        let service: ObjectPath
        var value: [UInt8]
        var notifySessions = 0
        var notifyLink: AcquiredLink?
        var writeLink: AcquiredLink?
        var object: ExportedObject?

        init(spec: LocalCharacteristic, path: ObjectPath, service: ObjectPath) {
            self.spec = spec
            self.path = path
            self.service = service
            self.value = spec.value
        }
    }

    /// An application at `root` (e.g. `/org/relay/gatt`) serving `services`; characteristic
    /// UUIDs must be unique within it. Nothing is on the bus until `register`.
    public init(client: BlueZClient, root: ObjectPath = "/org/relay/gatt", services: [LocalService]) {
        self.client = client
        self.root = root
        self.services = services
    }

    deinit {
        if let ownerObserver { client.removeOwnerObserver(ownerObserver) }
        unexport()
    }

    /// Whether the objects are on the bus.
    public var isExported: Bool { !objects.isEmpty }

    /// Puts the objects on the bus (done by `register` if needed).
    public func export() throws(BlueZError) {
        guard objects.isEmpty else { return }
        let connection = client.connection
        var created: [ExportedObject] = [ExportedObject(path: root, isObjectManager: true)]
        var states: [BluetoothUUID: CharacteristicState] = [:]
        do {
            for (serviceIndex, service) in services.enumerated() {
                let servicePath = try root.appending("service\(serviceIndex)")
                created.append(ExportedObject(path: servicePath, interfaces: [serviceInterface(service)]))
                for (index, spec) in service.characteristics.enumerated() {
                    guard states[spec.uuid] == nil else {
                        throw BlueZError(.invalidArguments, "characteristic \(spec.uuid) appears twice")
                    }
                    let state = CharacteristicState(
                        spec: spec, path: try servicePath.appending("char\(index)"), service: servicePath)
                    let object = ExportedObject(path: state.path, interfaces: [characteristicInterface(state)])
                    state.object = object
                    states[spec.uuid] = state
                    created.append(object)
                }
            }
            for object in created { try connection.export(object) }
        } catch let error as DBusError {
            created.forEach { connection.unexport($0.path) }
            throw BlueZError(error)
        } catch let error as BlueZError {
            created.forEach { connection.unexport($0.path) }
            throw error
        } catch {
            throw BlueZError(.other, "\(error)")
        }
        objects = created
        characteristics = states
        if ownerObserver == nil {
            ownerObserver = client.observeOwner { [weak self] owner in
                if owner == nil { self?.bluetoothdWentAway() }
            }
        }
    }

    /// Removes the objects from the bus (closing any acquired sockets).
    public func unexport() {
        for state in characteristics.values {
            state.notifyLink?.close()
            state.writeLink?.close()
        }
        for object in objects.reversed() { client.connection.unexport(object.path) }
        objects = []
        characteristics = [:]
    }

    /// Exports (if needed) and registers with `GattManager1.RegisterApplication` on `adapter`.
    /// Registering again while registered completes with the existing registration.
    public func register(adapter id: AdapterID, completion: @escaping (Result<BlueZRegistration, BlueZError>) -> Void) {
        if let registration, registration.isActive {
            client.loop.schedule(after: 0) { completion(.success(registration)) }
            return
        }
        do {
            try export()
        } catch {
            client.loop.schedule(after: 0) { completion(.failure(error)) }
            return
        }
        let adapter = id.path
        client.callVoid(
            adapter, BlueZInterface.gattManager, "RegisterApplication",
            [.objectPath(root), .stringDict([:])]
        ) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                let registration = BlueZRegistration(
                    client: self.client, adapter: adapter, object: self.root, interface: BlueZInterface.gattManager,
                    unregisterMethod: "UnregisterApplication"
                ) { [weak self] in self?.registrationEnded() }
                self.registration = registration
                completion(.success(registration))
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    private func registrationEnded() {
        registration = nil
        for state in characteristics.values {
            state.notifySessions = 0
            state.notifyLink?.close()
            state.notifyLink = nil
            state.writeLink?.close()
            state.writeLink = nil
        }
    }

    private func bluetoothdWentAway() {
        guard let registration, registration.isActive else { return }
        registration.invalidate()
        onEvent?(.unregistered)
    }

    // MARK: Values

    /// The current value of a characteristic.
    public func value(of uuid: BluetoothUUID) -> [UInt8]? { characteristics[uuid]?.value }

    /// Sets the value answered to reads, without notifying.
    public func setValue(_ value: [UInt8], for uuid: BluetoothUUID) {
        characteristics[uuid]?.value = value
    }

    /// Whether anyone is subscribed (a `StartNotify` session or an acquired socket).
    public func isNotifying(_ uuid: BluetoothUUID) -> Bool {
        guard let state = characteristics[uuid] else { return false }
        return state.notifySessions > 0 || state.notifyLink?.isOpen == true
    }

    /// The MTU BlueZ gave with the acquired notification socket, if any.
    public func notifyLinkMTU(_ uuid: BluetoothUUID) -> MTU? {
        characteristics[uuid]?.notifyLink?.mtu
    }

    /// Sets the value and sends it as a notification to the subscribed centrals, each once.
    ///
    /// While any `StartNotify` session is open the value goes out as `PropertiesChanged` only:
    /// bluetoothd sends that to every device that enabled notifications, whichever way it
    /// subscribed. Otherwise it goes into the acquired socket. Both at once would reach the
    /// socket's device twice: BlueZ 5.69 and later ask for one socket per device, we hold one
    /// (`handleAcquire` refuses the others, and bluetoothd falls back to `StartNotify` for
    /// them), and from 5.76 a socket's data goes to its own device only, so the socket alone
    /// would miss the rest.
    public func notify(_ value: [UInt8], on uuid: BluetoothUUID) -> NotifyResult {
        guard let state = characteristics[uuid], let object = state.object else {
            return .failed(BlueZError(.gone, "no characteristic \(uuid) in this application"))
        }
        state.value = value
        if state.notifySessions > 0 {
            guard let owner = client.owner else { return .failed(BlueZError(.serviceUnknown, "bluetoothd is gone")) }
            do {
                try client.connection.emitSignal(
                    path: object.path, interface: BlueZInterface.properties, member: "PropertiesChanged",
                    arguments: [
                        .string(BlueZInterface.gattCharacteristic), .stringDict(["Value": .bytes(value)]),
                        .strings([]),
                    ],
                    destination: broadcastsNotifications ? nil : owner)
                return .sent
            } catch {
                return .failed(BlueZError(error))
            }
        }
        if let link = state.notifyLink, link.isOpen {
            switch link.send(value) {
            case .sent: return .sent
            case .wouldBlock: return .wouldBlock
            case .failed: break
            }
        }
        return .notSubscribed
    }
}
