import RelayBlueZ
import RelayProtocol

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
