import RelayApp
import RelayBlueZ
import RelayProtocol

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
    /// bluetoothd holds a bond with it.
    var paired = false
}

/// How values reach the write characteristic.
enum WritePath: String, Sendable, Equatable {
    /// The `AcquireWrite` socket: one datagram per value, writable-ready paces.
    case socket
    /// `WriteValue` with `type=command`, each after the previous one completed.
    case writeValue = "write-value"
    /// `WriteValue` with `type=request` (a write with response), each after its reply: a UART
    /// device's RX that cannot be written without response.
    case writeRequest = "write-request"

    /// What `--write-path` offers (write requests are chosen by the characteristic, not the user).
    static let choices: [WritePath] = [.socket, .writeValue]
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

/// What `connect` is given: an index from the scan list, or an address.
enum ConnectTarget: Equatable, Sendable, CustomStringConvertible {
    case index(Int)
    case address(BluetoothAddress)

    var description: String {
        switch self {
        case .index(let index): return String(index)
        case .address(let address): return address.description
        }
    }
}

/// The peer `--connect` asks for at start-up: an address, or an advertised name.
enum StartupTarget: Equatable, Sendable, CustomStringConvertible {
    case address(BluetoothAddress)
    case name(String)

    /// An address when `text` is one (`AA:BB:CC:DD:EE:FF`), else a name.
    init(parsing text: String) {
        if text.contains(":"), let address = BluetoothAddress(text) {
            self = .address(address)
        } else {
            self = .name(text)
        }
    }

    var description: String {
        switch self {
        case .address(let address): return address.description
        case .name(let name): return name
        }
    }
}
