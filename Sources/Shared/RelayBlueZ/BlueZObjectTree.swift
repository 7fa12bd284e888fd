import RelayDBus
import RelayProtocol

/// bluetoothd's objects as last reported (path -> interface -> properties), kept up to date from
/// `GetManagedObjects`, `InterfacesAdded`/`Removed` and `PropertiesChanged`, with typed queries.
///
/// Pure: every update returns the events it implies; no I/O. Objects whose properties do not
/// match the documented shape are kept but left out of typed queries (and reported as `.problem`).
public struct BlueZObjectTree: Sendable {
    /// The raw objects.
    public private(set) var objects: [ObjectPath: InterfaceProperties] = [:]

    public init() {}

    private static let tracked: Set<String> = [
        BlueZInterface.adapter, BlueZInterface.device, BlueZInterface.gattService,
        BlueZInterface.gattCharacteristic, BlueZInterface.gattManager, BlueZInterface.advertisingManager,
    ]

    // MARK: Updates

    /// Replaces everything with a `GetManagedObjects` result: removals for objects that are gone,
    /// then additions (adapters, devices, services, characteristics, in that order).
    public mutating func load(_ managed: [ObjectPath: InterfaceProperties]) -> [BlueZEvent] {
        var events: [BlueZEvent] = []
        for (path, interfaces) in objects.sorted(by: { $0.key > $1.key }) where managed[path] == nil {
            events += interfacesRemoved(path, Array(interfaces.keys))
        }
        let order = [
            BlueZInterface.adapter, BlueZInterface.device, BlueZInterface.gattService,
            BlueZInterface.gattCharacteristic,
        ]
        let sorted = managed.sorted { lhs, rhs in
            let l = order.firstIndex { lhs.value[$0] != nil } ?? order.count
            let r = order.firstIndex { rhs.value[$0] != nil } ?? order.count
            return (l, lhs.key) < (r, rhs.key)
        }
        for (path, interfaces) in sorted {
            if let known = objects[path] {
                for (name, properties) in interfaces where known[name] != nil {
                    events += propertiesChanged(
                        path, interface: name, changed: properties,
                        invalidated: Array(Set(known[name]!.keys).subtracting(properties.keys)))
                }
                let fresh = interfaces.filter { known[$0.key] == nil }
                if !fresh.isEmpty { events += interfacesAdded(path, fresh) }
            } else {
                events += interfacesAdded(path, interfaces)
            }
        }
        return events
    }

    /// Removes everything (bluetoothd went away), children before parents.
    public mutating func clear() -> [BlueZEvent] {
        var events: [BlueZEvent] = []
        for (path, interfaces) in objects.sorted(by: { $0.key > $1.key }) {
            events += interfacesRemoved(path, Array(interfaces.keys))
        }
        objects = [:]
        return events
    }

    /// Applies `InterfacesAdded`.
    public mutating func interfacesAdded(_ path: ObjectPath, _ interfaces: InterfaceProperties) -> [BlueZEvent] {
        let hadAdapter = objects[path]?[BlueZInterface.adapter] != nil
        objects[path, default: [:]].merge(interfaces) { _, new in new }
        let names = Set(interfaces.keys)
        var events: [BlueZEvent] = []
        do {
            if names.contains(BlueZInterface.adapter), !hadAdapter, let adapter = try adapterSnapshot(path) {
                events.append(.adapter(.added(adapter)))
            } else if hadAdapter,
                !names.isDisjoint(with: [BlueZInterface.gattManager, BlueZInterface.advertisingManager]),
                let adapter = try adapterSnapshot(path)
            {
                events.append(.adapter(.changed(adapter, changed: names)))
            }
            if names.contains(BlueZInterface.device),
                let device = try DeviceSnapshot(path: path, interfaces: objects[path]!)
            {
                events.append(.device(.added(device)))
            }
            if names.contains(BlueZInterface.gattService),
                let service = try GattServiceSnapshot(path: path, interfaces: objects[path]!)
            {
                events.append(.gatt(.serviceAdded(service)))
            }
            if names.contains(BlueZInterface.gattCharacteristic),
                let characteristic = try GattCharacteristicSnapshot(path: path, interfaces: objects[path]!)
            {
                events.append(.gatt(.characteristicAdded(characteristic)))
            }
        } catch {
            events.append(.problem(error))
        }
        return events
    }

    /// Applies `InterfacesRemoved`.
    public mutating func interfacesRemoved(_ path: ObjectPath, _ names: [String]) -> [BlueZEvent] {
        guard var interfaces = objects[path] else { return [] }
        let address = interfaces[BlueZInterface.device]?.string("Address").flatMap(BluetoothAddress.init)
        var removed: Set<String> = []
        for name in names where interfaces.removeValue(forKey: name) != nil { removed.insert(name) }
        objects[path] = interfaces.isEmpty ? nil : interfaces
        var events: [BlueZEvent] = []
        if removed.contains(BlueZInterface.gattCharacteristic) {
            events.append(.gatt(.characteristicRemoved(CharacteristicID(path))))
        }
        if removed.contains(BlueZInterface.gattService) { events.append(.gatt(.serviceRemoved(path: path.rawValue))) }
        if removed.contains(BlueZInterface.device) {
            events.append(.device(.removed(DeviceID(path), address: address)))
        }
        if removed.contains(BlueZInterface.adapter) {
            events.append(.adapter(.removed(AdapterID(path))))
        } else if !removed.isDisjoint(with: [BlueZInterface.gattManager, BlueZInterface.advertisingManager]),
            let adapter = try? adapterSnapshot(path)
        {
            events.append(.adapter(.changed(adapter, changed: removed)))
        }
        return events
    }

    /// Applies `PropertiesChanged`; ignored for objects or interfaces not (yet) known.
    public mutating func propertiesChanged(
        _ path: ObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String]
    ) -> [BlueZEvent] {
        guard Self.tracked.contains(interface), var properties = objects[path]?[interface] else { return [] }
        properties.merge(changed) { _, new in new }
        for name in invalidated { properties[name] = nil }
        objects[path]![interface] = properties
        let names = Set(changed.keys).union(invalidated)
        guard !names.isEmpty else { return [] }
        do {
            switch interface {
            case BlueZInterface.adapter, BlueZInterface.gattManager, BlueZInterface.advertisingManager:
                guard let adapter = try adapterSnapshot(path) else { return [] }
                return [.adapter(.changed(adapter, changed: names))]
            case BlueZInterface.device:
                guard let device = try DeviceSnapshot(path: path, interfaces: objects[path]!) else { return [] }
                return [.device(.changed(device, changed: names))]
            case BlueZInterface.gattCharacteristic:
                guard let characteristic = try GattCharacteristicSnapshot(path: path, interfaces: objects[path]!) else {
                    return []
                }
                var events: [BlueZEvent] = []
                if let value = changed["Value"]?.asBytes {
                    events.append(.gatt(.valueChanged(characteristic, value: value)))
                }
                let others = names.subtracting(["Value"])
                if !others.isEmpty { events.append(.gatt(.characteristicChanged(characteristic, changed: others))) }
                return events
            default:
                return []
            }
        } catch {
            return [.problem(error)]
        }
    }

    // MARK: Queries

    private func adapterSnapshot(_ path: ObjectPath) throws(BlueZError) -> AdapterSnapshot? {
        guard let interfaces = objects[path] else { return nil }
        return try AdapterSnapshot(path: path, interfaces: interfaces)
    }

    /// All adapters, by path.
    public var adapters: [AdapterSnapshot] {
        objects.keys.sorted().compactMap { try? adapterSnapshot($0) }
    }

    /// The adapter at `path`.
    func adapter(at path: ObjectPath) -> AdapterSnapshot? { try? adapterSnapshot(path) }

    /// The adapter named by `selector` (`hci1`, its path or its address), or the first one when `nil`.
    public func adapter(matching selector: String?) -> AdapterSnapshot? {
        guard let selector else { return adapters.first }
        return adapters.first { $0.matches(selector) }
    }

    /// Devices, optionally only those seen by one adapter, by path.
    func devices(on adapter: ObjectPath? = nil) -> [DeviceSnapshot] {
        objects.sorted { $0.key < $1.key }.compactMap { path, interfaces in
            guard let device = try? DeviceSnapshot(path: path, interfaces: interfaces) else { return nil }
            return adapter == nil || device.adapter == adapter ? device : nil
        }
    }

    /// The device at `path`.
    func device(at path: ObjectPath) -> DeviceSnapshot? {
        objects[path].flatMap { try? DeviceSnapshot(path: path, interfaces: $0) }
    }

    /// The device with `address` seen by `adapter`.
    func device(address: BluetoothAddress, on adapter: ObjectPath) -> DeviceSnapshot? {
        devices(on: adapter).first { $0.address == address }
    }

    /// The GATT services of a device, by path.
    func services(of device: ObjectPath) -> [GattServiceSnapshot] {
        objects.sorted { $0.key < $1.key }.compactMap { path, interfaces in
            guard let service = try? GattServiceSnapshot(path: path, interfaces: interfaces) else { return nil }
            return service.device == device ? service : nil
        }
    }

    /// The first service of `device` with `uuid`.
    func service(_ uuid: BluetoothUUID, of device: ObjectPath) -> GattServiceSnapshot? {
        services(of: device).first { $0.uuid == uuid }
    }

    /// The characteristics of a service, by path.
    func characteristics(of service: ObjectPath) -> [GattCharacteristicSnapshot] {
        objects.sorted { $0.key < $1.key }.compactMap { path, interfaces in
            guard let item = try? GattCharacteristicSnapshot(path: path, interfaces: interfaces) else { return nil }
            return item.service == service ? item : nil
        }
    }

    /// The first characteristic with `uuid` in `service`.
    func characteristic(_ uuid: BluetoothUUID, in service: ObjectPath) -> GattCharacteristicSnapshot? {
        characteristics(of: service).first { $0.uuid == uuid }
    }

    /// The characteristic at `path`.
    func characteristic(at path: ObjectPath) -> GattCharacteristicSnapshot? {
        objects[path].flatMap { try? GattCharacteristicSnapshot(path: path, interfaces: $0) }
    }
}
