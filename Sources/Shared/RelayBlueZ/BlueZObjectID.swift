import RelayDBus

/// A bluetoothd adapter object (`/org/bluez/hci0`), as programs refer to it.
public struct AdapterID: Hashable, Sendable, CustomStringConvertible {
    let path: ObjectPath
    init(_ path: ObjectPath) { self.path = path }
    public var description: String { path.rawValue }
}

/// A bluetoothd device object (`/org/bluez/hci1/dev_AA_BB_CC_DD_EE_FF`).
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    let path: ObjectPath
    init(_ path: ObjectPath) { self.path = path }
    /// The device object at `path`, or nil when `path` is not an object path (tests).
    public init?(path: String) {
        guard let valid = ObjectPath(validating: path) else { return nil }
        self.path = valid
    }
    public var description: String { path.rawValue }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.path.rawValue < rhs.path.rawValue }
}

/// A remote GATT characteristic object (`.../service0010/char0011`).
public struct CharacteristicID: Hashable, Sendable, CustomStringConvertible {
    let path: ObjectPath
    init(_ path: ObjectPath) { self.path = path }
    /// The characteristic object at `path`, or nil when `path` is not an object path (tests).
    public init?(path: String) {
        guard let valid = ObjectPath(validating: path) else { return nil }
        self.path = valid
    }
    public var description: String { path.rawValue }
}

extension AdapterSnapshot {
    /// This adapter's object.
    public var id: AdapterID { AdapterID(path) }
}

extension DeviceSnapshot {
    /// This device's object.
    public var id: DeviceID { DeviceID(path) }
    /// The adapter it belongs to.
    public var adapterID: AdapterID { AdapterID(adapter) }
}

extension GattCharacteristicSnapshot {
    /// This characteristic's object.
    public var id: CharacteristicID { CharacteristicID(path) }
}

extension GattRequest {
    /// The device that made the request, when bluetoothd said.
    public var deviceID: DeviceID? { device.map(DeviceID.init) }
}
