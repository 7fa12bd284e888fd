import RelayProtocol

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
