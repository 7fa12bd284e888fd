import RelayDBus
import RelayProtocol

/// The state of one local adapter (`org.bluez.Adapter1` plus its managers) at one moment.
public struct AdapterSnapshot: Hashable, Sendable, CustomStringConvertible {
    /// `/org/bluez/hci0`.
    public let path: ObjectPath
    /// The adapter's public (or static random) address.
    public let address: BluetoothAddress
    /// `public` or `random`, when reported.
    public let addressType: String?
    /// The system name.
    public let systemName: String?
    /// The friendly name (settable in BlueZ; defaults to the system name).
    public let alias: String?
    public let powered: Bool
    /// `on`, `off`, `off-enabling`, `on-disabling` or `off-blocked` (BlueZ 5.64+; `nil` before).
    public let powerState: String?
    public let discovering: Bool
    public let discoverable: Bool
    public let pairable: Bool
    /// UUIDs of the local services the adapter offers.
    public let uuids: [BluetoothUUID]
    /// `central`, `peripheral`, `central-peripheral`, when reported.
    public let roles: [String]
    /// Whether the adapter offers `GattManager1` (GATT server registration).
    public let hasGattManager: Bool
    /// The advertising manager's state, when the adapter offers `LEAdvertisingManager1`.
    public let advertising: AdvertisingManagerSnapshot?

    /// The kernel name, the last path element (`hci0`).
    public var name: String { path.lastComponent }

    /// Builds the snapshot from an object's interfaces; `nil` when it is not an adapter.
    public init?(path: ObjectPath, interfaces: InterfaceProperties) throws(BlueZError) {
        guard let properties = interfaces[BlueZInterface.adapter] else { return nil }
        guard let text = properties.string("Address"), let address = BluetoothAddress(text) else {
            throw .shape("adapter \(path) has no valid Address")
        }
        self.path = path
        self.address = address
        addressType = properties.string("AddressType")
        systemName = properties.string("Name")
        alias = properties.string("Alias")
        powered = properties.bool("Powered") ?? false
        powerState = properties.string("PowerState")
        discovering = properties.bool("Discovering") ?? false
        discoverable = properties.bool("Discoverable") ?? false
        pairable = properties.bool("Pairable") ?? false
        uuids = properties.uuids("UUIDs")
        roles = properties["Roles"]?.asStrings ?? []
        hasGattManager = interfaces[BlueZInterface.gattManager] != nil
        advertising = interfaces[BlueZInterface.advertisingManager].map(AdvertisingManagerSnapshot.init)
    }

    /// Whether `selector` (`hci1`, `/org/bluez/hci1` or an address) names this adapter.
    public func matches(_ selector: String) -> Bool {
        if selector == name || selector == path.rawValue { return true }
        if let wanted = BluetoothAddress(selector) { return wanted == address }
        return false
    }

    public var description: String {
        "\(name) \(address)" + (alias.map { " '\($0)'" } ?? "") + (powered ? " powered" : " off")
            + (discovering ? " discovering" : "")
    }
}

/// The state of `org.bluez.LEAdvertisingManager1` on an adapter.
public struct AdvertisingManagerSnapshot: Hashable, Sendable {
    /// Advertisements registered now.
    public let activeInstances: Int
    /// How many more can be registered.
    public let supportedInstances: Int
    /// `tx-power`, `appearance`, `local-name`, ...
    public let supportedIncludes: [String]
    /// `1M`, `2M`, `Coded`.
    public let supportedSecondaryChannels: [String]
    /// Controller features (`CanSetTxPower`, `HardwareOffload`, ...), BlueZ 5.62+.
    public let supportedFeatures: [String]
    /// `MaxAdvLen` from `SupportedCapabilities`, when reported.
    public let maximumAdvertisingDataLength: Int?
    /// `MaxScanRespLen` from `SupportedCapabilities`, when reported.
    public let maximumScanResponseLength: Int?
    /// Whether bluetoothd reads an advertisement's `MinInterval`/`MaxInterval`: it does when it
    /// shows its experimental properties (BlueZ 5.66 with `-E`, where `SupportedCapabilities` is
    /// one; always from 5.82 on, where the property is no longer experimental).
    public let readsIntervals: Bool

    /// Reads the manager's properties; missing ones are empty or zero.
    public init(properties: [String: DBusValue]) {
        activeInstances = properties["ActiveInstances"]?.asByte.map(Int.init) ?? 0
        supportedInstances = properties["SupportedInstances"]?.asByte.map(Int.init) ?? 0
        supportedIncludes = properties["SupportedIncludes"]?.asStrings ?? []
        supportedSecondaryChannels = properties["SupportedSecondaryChannels"]?.asStrings ?? []
        supportedFeatures = properties["SupportedFeatures"]?.asStrings ?? []
        let capabilities = properties["SupportedCapabilities"]?.asDictionary ?? [:]
        readsIntervals = properties["SupportedCapabilities"] != nil
        maximumAdvertisingDataLength = capabilities["MaxAdvLen"]?.asByte.map(Int.init)
        maximumScanResponseLength = capabilities["MaxScanRespLen"]?.asByte.map(Int.init)
    }

    /// One line for error messages: what the adapter supports.
    public var summary: String {
        var parts = ["\(activeInstances) active", "\(supportedInstances) more possible"]
        if !supportedIncludes.isEmpty { parts.append("includes: " + supportedIncludes.joined(separator: ",")) }
        if !supportedFeatures.isEmpty { parts.append("features: " + supportedFeatures.joined(separator: ",")) }
        if let max = maximumAdvertisingDataLength { parts.append("max data \(max) bytes") }
        return parts.joined(separator: "; ")
    }
}
