import RelayDBus
import RelayProtocol

/// The BlueZ D-Bus names this model uses.
public enum BlueZInterface {
    /// The well-known bus name of bluetoothd.
    public static let service = "org.bluez"
    public static let adapter = "org.bluez.Adapter1"
    public static let device = "org.bluez.Device1"
    public static let gattManager = "org.bluez.GattManager1"
    public static let gattService = "org.bluez.GattService1"
    public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    public static let gattDescriptor = "org.bluez.GattDescriptor1"
    public static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    public static let advertisement = "org.bluez.LEAdvertisement1"
    public static let agentManager = "org.bluez.AgentManager1"
    public static let agent = "org.bluez.Agent1"
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
    public static let properties = "org.freedesktop.DBus.Properties"
}

/// Interfaces and their properties for one object (`a{sa{sv}}`, variants unwrapped).
public typealias InterfaceProperties = [String: [String: DBusValue]]

extension BlueZError {
    /// The typed form of a D-Bus layer error.
    public init(_ error: DBusError) {
        switch error {
        case .remote(let remote): self.init(name: remote.name, message: remote.message)
        case .timeout: self.init(.noReply, "no reply from bluetoothd in time")
        case .disconnected: self.init(.disconnected, "the D-Bus connection is closed")
        case .wrongShape(let why), .malformedMessage(let why): self.init(.unexpectedReply, why)
        default: self.init(.other, error.description)
        }
    }

    /// A reply or property that does not match the documented shape.
    static func shape(_ what: String) -> BlueZError { BlueZError(.unexpectedReply, what) }
}

/// Typed reads of a property dictionary (`a{sv}` with variants unwrapped).
extension Dictionary where Key == String, Value == DBusValue {
    func string(_ name: String) -> String? { self[name]?.asString }
    func bool(_ name: String) -> Bool? { self[name]?.asBool }
    func uuids(_ name: String) -> [BluetoothUUID] { (self[name]?.asStrings ?? []).compactMap { BluetoothUUID($0) } }
    func bytes(_ name: String) -> [UInt8]? { self[name]?.asBytes }
}
