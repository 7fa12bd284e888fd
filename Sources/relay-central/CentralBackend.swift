import RelayBlueZ
import RelayProtocol

/// What the driver needs from the Bluetooth side: bluetoothd through D-Bus in the program
/// (`BlueZCentralBackend`), a fake in the tests. Each call's outcome, and everything else
/// bluetoothd reports, comes back as a `CentralInput` through `CentralDriver.feed(_:)`.
protocol CentralBackend: AnyObject {
    /// Connect to the bus and follow bluetoothd (answers `.adapter` as it learns the adapter).
    func start()
    /// Filter on `services` (none: every device; LE only) and start discovery; answer
    /// `.discoveryStarted` (then `.deviceUpdated` for the devices already known) or `.discoveryFailed`.
    func startDiscovery(services: [BluetoothUUID])
    func stopDiscovery()
    /// `Device1.Connect` within `timeout` seconds; answer `.connectFinished`.
    func connect(_ device: DeviceID, timeout: Double)
    /// `Device1.Disconnect`; answer `.disconnectFinished`.
    func disconnect(_ device: DeviceID)
    /// Answer `.characteristicsFound` with the device's resolved characteristics.
    func findCharacteristics(of device: DeviceID)
    /// Answer `.notifyStarted`.
    func startNotify(_ characteristic: CharacteristicID)
    /// Answer `.notifyAcquired` or `.notifyAcquireFailed`; datagrams then come as `.notification`.
    func acquireNotify(_ characteristic: CharacteristicID)
    /// Answer `.writeAcquired` or `.writeAcquireFailed`.
    func acquireWrite(_ characteristic: CharacteristicID)
    /// Answer `.mtuRead` with the characteristic's `MTU` property.
    func readMTU(_ characteristic: CharacteristicID)
    /// Send one value on `carrier` (the lane frames it); answer `.sendFinished`: `.sent` once it
    /// is taken (socket, channel) or replied (`WriteValue`), `.full` when the socket is full (then
    /// `.carrierWritable(carrier)` once it can take more), or `.failed`.
    func send(_ value: [UInt8], on carrier: Carrier)
    /// Close the `AcquireWrite` and `AcquireNotify` sockets and the L2CAP channel, if any.
    func releaseSockets()
    /// Answer `.lanePSMRead`.
    func readLanePSM(_ characteristic: CharacteristicID)
    /// Open an L2CAP channel to `psm` of `device` with `security`, within `timeout` seconds;
    /// answer `.laneOpened` or `.laneOpenFailed`, then `.laneReceived`, `.laneClosed`.
    func openLane(to device: DeviceID, psm: LanePSM, security: LaneSecurity, timeout: Double)
    /// Close the channel, if any.
    func closeLane()
    /// Answer `.readFinished`.
    func readValue(_ role: CharacteristicRole, of characteristic: CharacteristicID)
    /// `Device1.Pair` through our agent (registered first when needed); the agent's request
    /// comes as `.passkeyRequested`, the outcome as `.pairFinished`.
    func pair(_ device: DeviceID)
    /// Answer the agent's pending passkey request (nothing when none is pending).
    func answerPasskey(_ passkey: Passkey)
    /// `Adapter1.RemoveDevice`; answer `.unpairFinished`.
    func unpair(_ device: DeviceID)
    /// Quitting: close the sockets, disconnect `device` (if any) and call `done` when answered.
    func shutdown(disconnecting device: DeviceID?, then done: @escaping () -> Void)
}
