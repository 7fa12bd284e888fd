import RelayDBus

/// Our `org.bluez.LEAdvertisement1` object, registered with `LEAdvertisingManager1`.
///
/// BlueZ reads the properties once, at registration; to change the content, unregister,
/// set `data` and register again. `Release` (BlueZ dropping the advertisement, e.g. on
/// timeout or power-off) ends the registration and is reported through `onReleased`.
public final class LEAdvertisement {
    /// The object path (e.g. `/org/relay/advertisement0`).
    public let path: ObjectPath
    /// The content served to BlueZ at the next registration.
    public var data: AdvertisementData
    /// Called when BlueZ released the advertisement or bluetoothd went away.
    public var onReleased: (() -> Void)?
    /// The current registration, if any.
    public private(set) var registration: BlueZRegistration?

    private let client: BlueZClient
    private var object: ExportedObject?
    private var ownerObserver: Int?

    public init(client: BlueZClient, path: ObjectPath = "/org/relay/advertisement0", data: AdvertisementData) {
        self.client = client
        self.path = path
        self.data = data
    }

    deinit {
        if let ownerObserver { client.removeOwnerObserver(ownerObserver) }
        if object != nil { client.connection.unexport(path) }
    }

    /// Whether BlueZ has it registered (as far as we know).
    public var isRegistered: Bool { registration?.isActive == true }

    private func makeInterface() -> ExportedInterface {
        let names: [(String, DBusSignature)] = [
            ("Type", .string), ("ServiceUUIDs", .array(of: .string)), ("LocalName", .string),
            ("Includes", .array(of: .string)), ("ManufacturerData", .dictionary(key: .uint16, value: .variant)),
            ("ServiceData", .dictionary(key: .string, value: .variant)), ("Discoverable", .boolean),
            ("Timeout", .uint16), ("Duration", .uint16), ("MinInterval", .uint32), ("MaxInterval", .uint32),
        ]
        let properties = names.map { name, signature in
            ExportedProperty(name, signature: signature) { [weak self] in self?.data.properties[name] }
        }
        let release = ExportedMethod("Release", input: "") { [weak self] _ in
            self?.released()
            return .success([])
        }
        return ExportedInterface(BlueZInterface.advertisement, methods: [release], properties: properties)
    }

    private func released() {
        guard let registration, registration.isActive else { return }
        registration.invalidate()
        onReleased?()
    }

    /// Puts the object on the bus (done by `register` if needed; doing it early takes the work
    /// off the registration's path). The properties are read from `data` when BlueZ asks.
    public func export() throws(BlueZError) {
        guard object == nil else { return }
        let exported = ExportedObject(path: path, interfaces: [makeInterface()])
        do {
            try client.connection.export(exported)
        } catch {
            throw BlueZError(error)
        }
        object = exported
    }

    /// Exports the object (if needed) and registers it on `adapter`. Registering again while
    /// registered completes with the existing registration. BlueZ refuses content that does not
    /// fit (`Failed`), or more advertisements than the controller supports (`NotPermitted`).
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
        if ownerObserver == nil {
            ownerObserver = client.observeOwner { [weak self] owner in
                if owner == nil { self?.released() }
            }
        }
        client.callVoid(
            adapter, BlueZInterface.advertisingManager, "RegisterAdvertisement",
            [.objectPath(path), .stringDict([:])]
        ) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                let registration = BlueZRegistration(
                    client: self.client, adapter: adapter, object: self.path,
                    interface: BlueZInterface.advertisingManager, unregisterMethod: "UnregisterAdvertisement"
                ) { [weak self] in self?.registration = nil }
                self.registration = registration
                completion(.success(registration))
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    /// Unregisters (if registered) and removes the object from the bus.
    public func withdraw(completion: @escaping (Result<Void, BlueZError>) -> Void = { _ in }) {
        let finish: (Result<Void, BlueZError>) -> Void = { [weak self] result in
            if let self, self.object != nil {
                self.client.connection.unexport(self.path)
                self.object = nil
            }
            completion(result)
        }
        if let registration {
            registration.unregister(completion: finish)
        } else {
            client.loop.schedule(after: 0) { finish(.success(())) }
        }
    }
}
