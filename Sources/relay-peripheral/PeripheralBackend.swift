import RelayProtocol
import Shared

/// The outcome of handing one notification value to the Bluetooth side.
enum BackendSendResult: Equatable, Sendable {
    /// Handed over.
    case sent
    /// The link is full: offer the same value again after `PeripheralController.backendWritable()`.
    case wouldBlock
    /// Nobody can receive it any more, or the hand-over failed.
    case failed(String)
}

/// What the controller needs from the Bluetooth side: bluetoothd through D-Bus in the
/// program (`BlueZPeripheralBackend`), a fake in the tests. Outcomes come back as
/// `PeripheralInput`s through `PeripheralController.handle(_:)`.
protocol PeripheralBackend: AnyObject {
    /// Register the GATT application; answer `.applicationRegistered(ticket)` or `.applicationFailed`.
    func registerApplication(_ ticket: RegistrationTicket)
    func unregisterApplication()
    /// Register the advertisement; answer `.advertisementRegistered(ticket)` or `.advertisementFailed`.
    func registerAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName)
    func unregisterAdvertisement()
    /// Notify one value to the subscribed centrals.
    func notify(_ value: [UInt8]) -> BackendSendResult
    /// Whether `notify` reports `.wouldBlock` and calls back when writable (a socket); if not,
    /// the controller paces the values itself.
    var pacesItself: Bool { get }
    /// Set the value a read of the notify characteristic returns.
    func setNotifyReadValue(_ value: [UInt8])
    /// Unregister everything and release the bus, then call `done`.
    func shutdown(then done: @escaping () -> Void)
    /// The adapter in use, for `status` (e.g. `hci0 00:AA:01:00:00:00`).
    var adapterDescription: String? { get }
}
