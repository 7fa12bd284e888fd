import RelayBlueZ
import RelayCLI
import RelayProtocol

/// Which adapter to use (`--adapter`): by kernel name (`hci0`) or by its address.
public enum AdapterChoice: Equatable, Sendable, CustomStringConvertible {
    case name(String)
    case address(BluetoothAddress)

    /// Parses `hciN` (N up to 4 digits) or `AA:BB:CC:DD:EE:FF` (any case).
    public init(parsing text: String) throws(UsageError) {
        let digits = text.dropFirst(3)
        if text.hasPrefix("hci"), (1...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            self = .name(text)
        } else if text.contains(":"), let address = BluetoothAddress(text) {
            self = .address(address)
        } else {
            throw UsageError(
                "--adapter: \(ValueParser.quoted(text)) is neither an adapter name like hci0 "
                    + "nor an address like 00:AA:01:00:00:00")
        }
    }

    /// Whether `adapter` is the one asked for.
    public func matches(_ adapter: AdapterSnapshot) -> Bool {
        switch self {
        case .name(let name): return adapter.name == name
        case .address(let address): return adapter.address == address
        }
    }

    public var description: String {
        switch self {
        case .name(let name): return name
        case .address(let address): return address.description
        }
    }
}
