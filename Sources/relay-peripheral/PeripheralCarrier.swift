import RelayApp
import RelayBlueZ

#if canImport(Glibc)
    import Glibc
#endif

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
    /// The carrier could not take the next value (a channel whose socket failed is then closed
    /// by the session).
    case failed(PeripheralTransportError)
}

/// Why a carrier could not take a value.
enum PeripheralTransportError: Equatable, Sendable, CustomStringConvertible {
    /// No connection to bluetoothd.
    case noBluetoothd
    /// Nobody is subscribed any more.
    case noSubscriber
    case bluez(BlueZError)
    /// A channel's socket refused the unit for another reason than being full (`errno`).
    case socketFailed(errno: Int32)

    var description: String {
        switch self {
        case .noBluetoothd: return "not connected to bluetoothd"
        case .noSubscriber: return "no central is subscribed any more"
        case .bluez(let error): return error.description
        case .socketFailed(let code): return "the L2CAP channel: \(String(cString: strerror(code)))"
        }
    }
}
