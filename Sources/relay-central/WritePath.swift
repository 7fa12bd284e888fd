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
