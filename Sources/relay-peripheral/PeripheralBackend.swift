import RelayApp
import RelayBlueZ
import RelayProtocol

/// What the driver needs from the Bluetooth side: bluetoothd through D-Bus in the program
/// (`BlueZPeripheralBackend`), a fake in the tests. Each call's outcome, and everything else
/// bluetoothd reports, comes back as a `PeripheralInput` through `PeripheralDriver.feed(_:)`.
protocol PeripheralBackend: AnyObject {
    /// Register the GATT application; answer `.applicationRegistered(ticket)` or `.applicationFailed`.
    func registerApplication(_ ticket: RegistrationTicket)
    func unregisterApplication()
    /// Register the advertisement; answer `.advertisementRegistered(ticket)` or `.advertisementFailed`.
    func registerAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval)
    func unregisterAdvertisement()
    /// Unregister the advertisement, then (once answered) register it again; answer as
    /// `registerAdvertisement`.
    func renewAdvertisement(_ ticket: RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval)
    /// Hand `values` in order to `carrier` until it is full: notifications of a characteristic to
    /// the centrals subscribed to it, or a channel's service data units. Answer `.sendFinished`
    /// (then `.carrierWritable` when it can take more, or `.failed`: the session closes a failed
    /// channel).
    func send(_ values: [[UInt8]], on carrier: PeripheralCarrier)
    /// Ends the link of the central at `address`, if it is connected (`.disconnected` follows).
    func disconnect(_ address: BluetoothAddress)
    /// Close a channel.
    func closeLane(_ lane: LaneID)
    /// Set the value a read of `characteristic` (the write or the notify characteristic) returns.
    func setReadValue(_ value: [UInt8], of characteristic: RelayCharacteristic)
    /// Unregister everything and release the bus, then call `done`.
    func shutdown(then done: @escaping () -> Void)
}
