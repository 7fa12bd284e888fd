import RelayProtocol
import Shared

/// The relay GATT profile the central looks for (the article's UUIDs).
enum RelayProfile {
    static let service = BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0")!
    /// Read + write-without-response: the central writes counters and frames here.
    static let writeCharacteristic = BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480")!
    /// Read + notify: the peripheral notifies counters and frames here.
    static let notifyCharacteristic = BluetoothUUID("DFB13451-1740-4F8A-B0F0-7C20D79E8BDF")!
}

/// A BlueZ device object (`/org/bluez/hci1/dev_AA_BB_...`), as the session refers to it.
struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    let path: String
    init(_ path: String) { self.path = path }
    var description: String { path }
}

/// A remote characteristic object (`.../service0010/char0011`).
struct CharacteristicID: Hashable, Sendable, CustomStringConvertible {
    let path: String
    init(_ path: String) { self.path = path }
    var description: String { path }
}

/// Which of the two relay characteristics.
enum CharacteristicRole: String, Sendable, Equatable {
    case write
    case notify
}

/// What the central knows about a remote device (a `Device1` object's properties).
struct DeviceInfo: Equatable, Sendable {
    var id: DeviceID
    var address: BluetoothAddress
    var name: String?
    var rssi: Int?
    var serviceUUIDs: [BluetoothUUID] = []
    var connected = false
    var servicesResolved = false
}

/// A remote GATT characteristic found under a device.
struct RemoteCharacteristic: Equatable, Sendable {
    var id: CharacteristicID
    var uuid: BluetoothUUID
    var serviceUUID: BluetoothUUID
    var flags: CharacteristicFlags
}

/// The adapter as the driver found it.
struct AdapterInfo: Equatable, Sendable, CustomStringConvertible {
    var name: String
    var address: BluetoothAddress?
    var description: String { address.map { "\(name) (\($0))" } ?? name }
}

/// Whether and how the adapter can be used, as the driver observes it.
enum AdapterAvailability: Equatable, Sendable {
    case present(AdapterInfo, powered: Bool)
    /// bluetoothd runs but offers no (matching) adapter.
    case absent(reason: String)
    /// `org.bluez` has no owner.
    case bluetoothdStopped
    /// The system bus refused us.
    case notPermitted(reason: String)
}

/// The adapter state, in the words the original apps log it.
enum AdapterState: Equatable, Sendable {
    case unknown
    case poweredOn
    case poweredOff
    case notAvailable(String)
    case notPermitted(String)

    /// The JSON `state` value.
    var word: String {
        switch self {
        case .unknown: return "unknown"
        case .poweredOn: return "poweredOn"
        case .poweredOff: return "poweredOff"
        case .notAvailable: return "notAvailable"
        case .notPermitted: return "notPermitted"
        }
    }

    /// A short human phrase.
    var phrase: String {
        switch self {
        case .unknown: return "unknown"
        case .poweredOn: return "powered on"
        case .poweredOff: return "powered off"
        case .notAvailable: return "not available"
        case .notPermitted: return "not permitted"
        }
    }

    /// Why the adapter cannot be used and how to fix it (to follow "Bluetooth is <phrase>: ").
    var problem: String? {
        switch self {
        case .unknown: return "the adapter is not known yet (waiting for bluetoothd)"
        case .poweredOn: return nil
        case .poweredOff: return "power it on (bluetoothctl power on)"
        case .notAvailable(let reason), .notPermitted(let reason): return reason
        }
    }

    /// The whole one-line explanation when the adapter cannot be used, e.g.
    /// "Bluetooth is powered off: power it on (bluetoothctl power on)".
    var problemSentence: String? {
        guard let problem else { return nil }
        return self == .unknown ? problem : "Bluetooth is \(phrase): \(problem)"
    }
}

/// How values reach the write characteristic.
enum WritePath: String, Sendable, Equatable {
    /// The `AcquireWrite` socket: one datagram per value, writable-ready paces.
    case socket
    /// `WriteValue` with `type=command`, each after the previous one completed.
    case writeValue = "write-value"
}

/// How notifications reach the central.
enum NotifyPath: String, Sendable, Equatable {
    /// The `AcquireNotify` socket: one datagram per notification, read on its own thread (no
    /// dbus-daemon hop); `StartNotify` when BlueZ refuses it.
    case socket
    /// `StartNotify`, then `Value` changes (`PropertiesChanged` signals through dbus-daemon).
    case signal
}

/// The connected (or connecting) peripheral.
struct Peer: Equatable, Sendable, CustomStringConvertible {
    var id: DeviceID
    var address: BluetoothAddress
    var name: String?
    var description: String { name.map { "\(address) (\($0))" } ?? address.description }
}

/// A device listed by `scan`: advertises the relay service and the expected name.
struct Candidate: Equatable, Sendable {
    var index: Int
    var id: DeviceID
    var address: BluetoothAddress
    var name: String
    var rssi: Int?
}

/// Identifies a command handed to the session, so its completion can be reported.
typealias CommandToken = Int

/// Why a scan ended.
enum ScanStopReason: String, Sendable, Equatable {
    case timeout
    case requested
    case connecting
    case adapterLost = "adapter-lost"
}

/// What a `--connect`, `connect ADDRESS` or reconnect scan looks for.
enum SeekTarget: Equatable, Sendable, CustomStringConvertible {
    case address(BluetoothAddress)
    case name(String)

    func matches(_ device: DeviceInfo) -> Bool {
        switch self {
        case .address(let address): return device.address == address
        case .name(let name): return device.name == name
        }
    }

    var description: String {
        switch self {
        case .address(let address): return address.description
        case .name(let name): return "'\(name)'"
        }
    }
}
