import RelayApp
import RelayBlueZ
import RelayProtocol

/// A link to a Nordic UART Service device (`--nus`, `connect --nus`): the line being received
/// and the text waiting to be written.
struct CentralUART: Equatable, Sendable {
    /// One value of text for RX; the last one of a `send` completes it.
    struct Value: Equatable, Sendable {
        var bytes: [UInt8]
        var completes: SentText?
    }

    /// A `send` to a UART device, reported once its last value is written.
    struct SentText: Equatable, Sendable {
        var number: Int
        var length: Int
        var sha256: String
        var values: Int
        var mtu: MTU
    }

    /// The device (its lines are messages from it, also the one the link's end completes).
    var device: BluetoothAddress?
    /// Text the device notified or indicated on TX, made into lines.
    var lines = UARTLineAssembler()
    /// Values waiting for RX, in order.
    var queue: [Value] = []
    /// Lines received (numbers the `message` events).
    var received = 0
}
