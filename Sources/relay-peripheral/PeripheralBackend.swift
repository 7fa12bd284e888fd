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
    /// Notify one value on `characteristic` to the centrals subscribed to it; answer `.notifyOutcome`.
    func notify(_ value: [UInt8], on characteristic: RelayCharacteristic)
    /// Send `units` in order on the channel until its socket is full; answer `.laneTook` (then
    /// `.laneWritable` when it can take more), or `.laneClosed` when it failed.
    func sendOnLane(_ id: LaneID, _ units: [[UInt8]])
    /// Ends the link of the central at `address`, if it is connected (`.disconnected` follows).
    func disconnect(_ address: BluetoothAddress)
    /// Close a channel.
    func closeLane(_ lane: LaneID)
    /// Set the value a read of `characteristic` (the write or the notify characteristic) returns.
    func setReadValue(_ value: [UInt8], of characteristic: RelayCharacteristic)
    /// Unregister everything and release the bus, then call `done`.
    func shutdown(then done: @escaping () -> Void)
}
