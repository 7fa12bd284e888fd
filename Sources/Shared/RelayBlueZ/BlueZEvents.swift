import RelayProtocol

/// Everything the BlueZ client reports, one enum per concern, delivered to one handler.
public enum BlueZEvent: Sendable {
    /// `org.bluez` got an owner (bluetoothd started or restarted); its objects follow as `added` events.
    case serviceAppeared(owner: String)
    /// `org.bluez` lost its owner (bluetoothd stopped); removal events for its objects came first.
    case serviceVanished
    /// The initial `GetManagedObjects` was applied (also after each `serviceAppeared`).
    case objectsLoaded
    case adapter(AdapterEvent)
    case device(DeviceEvent)
    case gatt(GattClientEvent)
    /// A reply or signal that could not be applied (kept for diagnostics, the model goes on).
    case problem(BlueZError)
}

/// Adapters appearing, changing and disappearing.
public enum AdapterEvent: Sendable {
    case added(AdapterSnapshot)
    /// `changed` names the properties (or manager interfaces) that changed.
    case changed(AdapterSnapshot, changed: Set<String>)
    case removed(AdapterID)
}

/// Remote devices appearing (discovery), changing (RSSI, name, service data, connection) and disappearing.
public enum DeviceEvent: Sendable {
    case added(DeviceSnapshot)
    /// `changed` names the `Device1` properties that changed.
    case changed(DeviceSnapshot, changed: Set<String>)
    case removed(DeviceID, address: BluetoothAddress?)
    /// BlueZ 5.81+ `Disconnected(reason, message)` signal.
    case disconnected(DeviceID, reason: String, message: String)
}

/// GATT objects of remote devices, and their values.
public enum GattClientEvent: Sendable {
    case serviceAdded(GattServiceSnapshot)
    case serviceRemoved(path: String)
    case characteristicAdded(GattCharacteristicSnapshot)
    /// Properties other than `Value` changed (e.g. `Notifying`, `WriteAcquired`, `MTU`).
    case characteristicChanged(GattCharacteristicSnapshot, changed: Set<String>)
    /// `Value` changed: a notification, an indication, or a read result.
    case valueChanged(GattCharacteristicSnapshot, value: [UInt8])
    case characteristicRemoved(CharacteristicID)
}
