import RelayCLI
import RelayProtocol

/// Which connected central a command means: its number in `status`'s list (from 1, the centrals
/// sorted by address) or its address, as `status` and `connected` show it (any case).
enum CentralChoice: Equatable, Sendable, CustomStringConvertible {
    case number(Int)
    case address(BluetoothAddress)

    /// A number or an address; anything else is refused with what was expected.
    init(parsing word: String, command: String) throws(CommandError) {
        if !word.isEmpty, word.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(word), number > 0 {
            self = .number(number)
        } else if let address = BluetoothAddress(word) {
            self = .address(address)
        } else {
            throw CommandError(
                "\(command): \(ValueParser.quoted(word)) is not a central's number (1, 2, ... as status lists them) "
                    + "or address (like 00:AA:01:01:00:01)")
        }
    }

    /// The address this choice names among `listed` (status's order), nil when none.
    func resolve(in listed: [BluetoothAddress]) -> BluetoothAddress? {
        switch self {
        case .number(let number): return listed.indices.contains(number - 1) ? listed[number - 1] : nil
        case .address(let address): return listed.contains(address) ? address : nil
        }
    }

    var description: String {
        switch self {
        case .number(let number): return String(number)
        case .address(let address): return address.description
        }
    }
}
