import RelayDBus
import RelayProtocol

/// A characteristic of a remote device's GATT database, as a central sees it.
public struct RemoteCharacteristic: Equatable, Sendable {
    public var id: CharacteristicID
    public var uuid: BluetoothUUID
    /// The UUID of the service it belongs to.
    public var serviceUUID: BluetoothUUID
    public var flags: CharacteristicFlags

    public init(id: CharacteristicID, uuid: BluetoothUUID, serviceUUID: BluetoothUUID, flags: CharacteristicFlags) {
        self.id = id
        self.uuid = uuid
        self.serviceUUID = serviceUUID
        self.flags = flags
    }
}

/// What programs ask of bluetoothd's objects, by typed object IDs (the D-Bus paths stay inside
/// this module).
extension BlueZObjectTree {
    /// The adapter `id`, if bluetoothd has it.
    public func adapter(_ id: AdapterID) -> AdapterSnapshot? { adapter(at: id.path) }

    /// The devices `adapter` has seen (all devices when nil), by object path.
    public func devices(on adapter: AdapterID?) -> [DeviceSnapshot] { devices(on: adapter?.path) }

    /// The device `id`.
    public func device(_ id: DeviceID) -> DeviceSnapshot? { device(at: id.path) }

    /// Every characteristic of `device`'s resolved GATT database, service by service.
    public func characteristics(of device: DeviceID) -> [RemoteCharacteristic] {
        services(of: device.path).flatMap { service in
            characteristics(of: service.path).map {
                RemoteCharacteristic(id: $0.id, uuid: $0.uuid, serviceUUID: service.uuid, flags: $0.flags)
            }
        }
    }

    /// The characteristic `id`.
    public func characteristic(_ id: CharacteristicID) -> GattCharacteristicSnapshot? { characteristic(at: id.path) }
}

extension BlueZClient {
    // MARK: Adapter1

    /// Sets the discovery filter for this client's discovery sessions on `adapter`.
    public func setDiscoveryFilter(
        _ filter: DiscoveryFilter, adapter: AdapterID, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        setDiscoveryFilter(filter, adapter: adapter.path, completion: completion)
    }

    /// Starts discovery; devices arrive as `.device(.added)` and `.device(.changed)` events.
    public func startDiscovery(adapter: AdapterID, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        startDiscovery(adapter: adapter.path, completion: completion)
    }

    /// Stops this client's discovery session.
    public func stopDiscovery(adapter: AdapterID, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        stopDiscovery(adapter: adapter.path, completion: completion)
    }

    /// Switches the adapter on or off.
    public func setPowered(
        _ powered: Bool, adapter: AdapterID, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        setPowered(powered, adapter: adapter.path, completion: completion)
    }

    /// Removes a device (and its bonding) from its adapter.
    public func removeDevice(
        _ device: DeviceID, adapter: AdapterID, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        removeDevice(device.path, adapter: adapter.path, completion: completion)
    }

    // MARK: Device1

    /// Connects; success means connected (services resolve later: watch `ServicesResolved`).
    public func connect(
        device: DeviceID, timeout: Double = 40, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        connect(device: device.path, timeout: timeout, completion: completion)
    }

    /// Pairs (and bonds) through this connection's agent (`Device1.Pair`): the passkey is asked
    /// of the `PairingAgent` this client registered. Success means paired; a wrong passkey
    /// fails with `authenticationFailed`, no answer in time with `authenticationTimeout`.
    public func pair(device: DeviceID, timeout: Double = 90, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        callVoid(device.path, BlueZInterface.device, "Pair", timeout: timeout, completion: completion)
    }

    /// Disconnects (also cancels a `Connect` bluetoothd is still working on).
    public func disconnect(device: DeviceID, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        disconnect(device: device.path, completion: completion)
    }

    // MARK: GattCharacteristic1

    /// Reads the value.
    public func readValue(characteristic: CharacteristicID, completion: @escaping (Result<[UInt8], BlueZError>) -> Void)
    {
        readValue(characteristic: characteristic.path, completion: completion)
    }

    /// Writes the value with a write command (`command`) or request (`request`).
    public func writeValue(
        _ value: [UInt8], characteristic: CharacteristicID, type: WriteType,
        completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        writeValue(value, characteristic: characteristic.path, type: type, completion: completion)
    }

    /// Starts notifications; values arrive as `.gatt(.valueChanged)` events.
    public func startNotify(characteristic: CharacteristicID, completion: @escaping (Result<Void, BlueZError>) -> Void)
    {
        startNotify(characteristic: characteristic.path, completion: completion)
    }

    /// Acquires the write socket (see `acquireWrite(characteristic:completion:)` on paths).
    public func acquireWrite(
        characteristic: CharacteristicID, completion: @escaping (Result<AcquiredLink, BlueZError>) -> Void
    ) {
        acquireWrite(characteristic: characteristic.path, completion: completion)
    }

    /// Acquires the notification socket.
    public func acquireNotify(
        characteristic: CharacteristicID, completion: @escaping (Result<AcquiredLink, BlueZError>) -> Void
    ) {
        acquireNotify(characteristic: characteristic.path, completion: completion)
    }
}
