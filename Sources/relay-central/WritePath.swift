import RelayBlueZ

/// A value the full `AcquireWrite` socket did not take: it waits in the session and is written
/// again once the socket can take more (`.writeWritable`).
struct BlockedWrite: Equatable, Sendable {
    var value: [UInt8]
    /// Where it goes: a characteristic's `AcquireWrite` socket, or nil: the L2CAP lane.
    var characteristic: CharacteristicID?
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
