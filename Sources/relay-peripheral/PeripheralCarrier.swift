import RelayApp
import RelayBlueZ

/// What carries relay-peripheral's values to centrals: a characteristic's notifications through
/// bluetoothd (every central subscribed to it hears the value), or one central's L2CAP channel
/// (its socket takes the channel's service data units until it is full). The session hands a
/// carrier values with one action, `.send(_:on:)`, hears one outcome, `.sendFinished(_:_:)`, and
/// `.carrierWritable(_:)` when a carrier that was full can take more. Which carriers a value goes
/// on is its `PeripheralRoute`.
enum PeripheralCarrier: Hashable, Sendable {
    case notification(RelayCharacteristic)
    case lane(LaneID)
}

/// How one `.send` went.
enum PeripheralSendOutcome: Equatable, Sendable {
    /// The carrier took the first `taken` values; `full`: it refused the next one (offer it again
    /// after `.carrierWritable`). `paced`: the carrier paces itself (a socket says when it is
    /// full); notifications sent as `PropertiesChanged` signals have no flow control.
    case took(Int, full: Bool, paced: Bool)
    /// bluetoothd refused the notification. A channel that fails is closed instead (`.laneClosed`).
    case failed(NotifyFailure)
}

/// Why a notification could not be handed over.
enum NotifyFailure: Equatable, Sendable, CustomStringConvertible {
    /// No connection to bluetoothd.
    case noBluetoothd
    /// Nobody is subscribed any more.
    case noSubscriber
    case bluez(BlueZError)

    var description: String {
        switch self {
        case .noBluetoothd: return "not connected to bluetoothd"
        case .noSubscriber: return "no central is subscribed any more"
        case .bluez(let error): return error.description
        }
    }
}
