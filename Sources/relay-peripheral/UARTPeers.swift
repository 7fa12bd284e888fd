import RelayApp
import RelayEndpoint
import RelayProtocol

/// Phone UART apps on the Nordic UART Service: who they are, the lines they are writing, and
/// the text waiting to be notified on TX.
struct UARTPeers: Equatable, Sendable {
    /// The line each central is writing (nil: a write without a device, never from bluetoothd).
    var lines: [BluetoothAddress?: UARTLineAssembler] = [:]
    /// Centrals that wrote RX or subscribed to TX through `AcquireNotify` (by address).
    var centrals: Set<BluetoothAddress> = []
    /// bluetoothd has TX notifications on (for one UART app or more).
    var subscribed = false
    /// TX notifications went on through `StartNotify`, which names nobody: any connected
    /// central may be listening.
    var anonymousSubscriber = false
    /// Values waiting for TX, in order.
    var queue: [[UInt8]] = []
    /// Lines received, from every UART app (numbers the `message` events).
    var received = 0
    /// Each UART app's lines shown one a message: `linesPerSecond`, then the rest of each write
    /// joined into one message (a burst of 20 writes of 255 one-character lines was 5 100 lines
    /// on the presenter's screen in a tenth of a second).
    var pace: [BluetoothAddress?: RateLimiter] = [:]
    /// Lines a UART app's writes become one message each, per second; more join into one.
    static let linesPerSecond = 20
}
