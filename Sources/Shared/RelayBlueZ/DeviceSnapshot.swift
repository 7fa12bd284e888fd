import RelayDBus
import RelayProtocol

/// The state of one remote device (`org.bluez.Device1`) at one moment.
public struct DeviceSnapshot: Hashable, Sendable, CustomStringConvertible {
    /// `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
    public let path: ObjectPath
    /// The adapter that sees the device.
    public let adapter: ObjectPath
    public let address: BluetoothAddress
    /// `public` or `random`, when reported.
    public let addressType: String?
    /// The advertised or GAP name, when known.
    public let name: String?
    /// The friendly name (the name, or the address with dashes when there is none).
    public let alias: String?
    /// Signal strength of the last advertisement, in dBm, while discovering.
    public let rssi: Int16?
    public let txPower: Int16?
    public let appearance: UInt16?
    /// Advertised (or resolved) service UUIDs.
    public let uuids: [BluetoothUUID]
    /// Advertised service data.
    public let serviceData: [BluetoothUUID: [UInt8]]
    /// Advertised manufacturer data by company identifier.
    public let manufacturerData: [UInt16: [UInt8]]
    public let connected: Bool
    /// Whether the GATT services are discovered and exported.
    public let servicesResolved: Bool
    public let paired: Bool
    public let trusted: Bool
    public let blocked: Bool

    /// Builds the snapshot from an object's interfaces; `nil` when it is not a device.
    public init?(path: ObjectPath, interfaces: InterfaceProperties) throws(BlueZError) {
        guard let properties = interfaces[BlueZInterface.device] else { return nil }
        guard let text = properties.string("Address"), let address = BluetoothAddress(text) else {
            throw .shape("device \(path) has no valid Address")
        }
        self.path = path
        self.address = address
        adapter = properties["Adapter"]?.asObjectPath ?? path.parent ?? .root
        addressType = properties.string("AddressType")
        name = properties.string("Name")
        alias = properties.string("Alias")
        rssi = properties["RSSI"]?.asInt16
        txPower = properties["TxPower"]?.asInt16
        appearance = properties["Appearance"]?.asUInt16
        uuids = properties.uuids("UUIDs")
        var service: [BluetoothUUID: [UInt8]] = [:]
        for (key, value) in properties["ServiceData"]?.asDictionary ?? [:] {
            if let uuid = BluetoothUUID(key), let bytes = value.asBytes { service[uuid] = bytes }
        }
        serviceData = service
        var manufacturer: [UInt16: [UInt8]] = [:]
        for (key, value) in properties["ManufacturerData"]?.asUInt16KeyedDictionary ?? [:] {
            if let bytes = value.asBytes { manufacturer[key] = bytes }
        }
        manufacturerData = manufacturer
        connected = properties.bool("Connected") ?? false
        servicesResolved = properties.bool("ServicesResolved") ?? false
        paired = properties.bool("Paired") ?? false
        trusted = properties.bool("Trusted") ?? false
        blocked = properties.bool("Blocked") ?? false
    }

    /// The name to show: the advertised name, else the alias, else the address.
    public var displayName: String { name ?? alias ?? address.description }

    public var description: String {
        "\(address)" + (name.map { " '\($0)'" } ?? "") + (rssi.map { " rssi \($0)" } ?? "")
            + (connected ? " connected" : "") + (servicesResolved ? " resolved" : "")
    }
}

/// A GATT service exported by BlueZ for a remote device (`org.bluez.GattService1`).
public struct GattServiceSnapshot: Hashable, Sendable {
    public let path: ObjectPath
    /// The device the service belongs to.
    public let device: ObjectPath
    public let uuid: BluetoothUUID
    public let primary: Bool
    public let handle: UInt16?

    /// Builds the snapshot; `nil` when the object is not a GATT service.
    public init?(path: ObjectPath, interfaces: InterfaceProperties) throws(BlueZError) {
        guard let properties = interfaces[BlueZInterface.gattService] else { return nil }
        guard let text = properties.string("UUID"), let uuid = BluetoothUUID(text) else {
            throw .shape("service \(path) has no valid UUID")
        }
        self.path = path
        self.uuid = uuid
        device = properties["Device"]?.asObjectPath ?? path.parent ?? .root
        primary = properties.bool("Primary") ?? true
        handle = properties["Handle"]?.asUInt16
    }
}

/// A GATT characteristic of a remote device (`org.bluez.GattCharacteristic1`).
public struct GattCharacteristicSnapshot: Hashable, Sendable {
    public let path: ObjectPath
    /// The service the characteristic belongs to.
    public let service: ObjectPath
    public let uuid: BluetoothUUID
    public let flags: CharacteristicFlags
    /// Flag strings this model does not know (kept for diagnostics).
    public let unknownFlags: [String]
    /// The cached value (updated by reads and notifications), when BlueZ has one.
    public let value: [UInt8]?
    /// Whether notifications or indications are enabled, when reported.
    public let notifying: Bool?
    /// Present when the characteristic supports `AcquireWrite`; true while acquired.
    public let writeAcquired: Bool?
    /// Present when the characteristic supports `AcquireNotify`; true while acquired.
    public let notifyAcquired: Bool?
    /// The link's ATT MTU (BlueZ 5.62+; `nil` before).
    public let mtu: MTU?
    public let handle: UInt16?

    /// Builds the snapshot; `nil` when the object is not a GATT characteristic.
    public init?(path: ObjectPath, interfaces: InterfaceProperties) throws(BlueZError) {
        guard let properties = interfaces[BlueZInterface.gattCharacteristic] else { return nil }
        guard let text = properties.string("UUID"), let uuid = BluetoothUUID(text) else {
            throw .shape("characteristic \(path) has no valid UUID")
        }
        self.path = path
        self.uuid = uuid
        service = properties["Service"]?.asObjectPath ?? path.parent ?? .root
        let parsed = CharacteristicFlags.parse(properties["Flags"]?.asStrings ?? [])
        flags = parsed.flags
        unknownFlags = parsed.unknown
        value = properties.bytes("Value")
        notifying = properties.bool("Notifying")
        writeAcquired = properties.bool("WriteAcquired")
        notifyAcquired = properties.bool("NotifyAcquired")
        mtu = properties["MTU"]?.asUInt16.map { MTU(clamping: Int($0)) }
        handle = properties["Handle"]?.asUInt16
    }
}
