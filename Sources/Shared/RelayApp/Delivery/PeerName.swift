import RelayBlueZ
import RelayCLI
import RelayProtocol

/// How events name the other side: `central 00:AA:01:01:00:01`, `peripheral 00:AA:01:00:00:00`,
/// or `a central` when bluetoothd did not say which.
public struct PeerName: Equatable, Sendable, CustomStringConvertible {
    public enum Role: String, Sendable {
        case central
        case peripheral
    }

    public let role: Role
    public let address: BluetoothAddress?

    public init(_ role: Role, _ address: BluetoothAddress?) {
        self.role = role
        self.address = address
    }

    public var description: String { address.map { "\(role.rawValue) \($0)" } ?? "a \(role.rawValue)" }

    /// The JSON value: the address, or null.
    public var json: JSONValue { address.map { .string($0.description) } ?? .null }
}
