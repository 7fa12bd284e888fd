import RelayBlueZ

/// How one `.notify` went.
enum NotifyOutcome: Equatable, Sendable {
    /// Handed over; `throughSocket` when the `AcquireNotify` socket took it (it paces itself).
    case sent(throughSocket: Bool)
    /// The socket is full: offer the same value again after `.notifyWritable`.
    case wouldBlock
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
