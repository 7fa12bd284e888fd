import RelayApp
import RelayBlueZ
import RelayProtocol

/// Everything that happens to the session: what every program hears (commands, timers, the
/// deadline, saves, quitting), and what BlueZ reported.
enum CentralInput: Equatable, Sendable, ProgramInputs {
    typealias Command = CentralCommand
    typealias Timer = CentralTimer
    /// Commands, timers, the deadline, saves, quitting (`ProgramInputs` names them).
    case program(ProgramInput<CentralCommand, CentralTimer>)
    /// The adapter's state (also: bluetoothd left, the adapter vanished, the bus refused us).
    case adapter(AdapterState, AdapterInfo?)
    case discoveryStarted
    case discoveryFailed(BlueZError)
    /// A device object appeared or changed (full snapshot of what is known).
    case deviceUpdated(DeviceInfo)
    case deviceRemoved(DeviceID)
    /// `Device1.Connect` replied (nil: success).
    case connectFinished(DeviceID, BlueZError?)
    /// `Device1.Disconnect` replied (nil: success).
    case disconnectFinished(DeviceID, BlueZError?)
    /// The characteristics under the device, once its services are resolved.
    case characteristicsFound(DeviceID, [RemoteCharacteristic])
    /// `StartNotify` replied (nil: success).
    case notifyStarted(BlueZError?)
    /// `AcquireNotify` gave a socket: notifications arrive as its datagrams.
    case notifyAcquired
    /// `AcquireNotify` was refused (or the characteristic lacks `NotifyAcquired`): use `StartNotify`.
    case notifyAcquireFailed(BlueZError)
    /// The `AcquireNotify` socket closed (BlueZ released it or the link dropped).
    case notifySocketClosed
    /// `AcquireWrite` gave a socket with this MTU.
    case writeAcquired(MTU)
    case writeAcquireFailed(BlueZError)
    /// The write characteristic's `MTU` property (nil when BlueZ does not have it).
    case mtuRead(MTU?)
    /// A characteristic's `MTU` property changed while connected.
    case mtuChanged(CharacteristicID, MTU)
    /// A characteristic's `Value` changed (a `PropertiesChanged` signal): on the notify
    /// characteristic, a notification on the signal path, or the echo of a read.
    case valueChanged(CharacteristicID, [UInt8])
    /// A datagram from the `AcquireNotify` socket: a notification.
    case notification([UInt8])
    /// The outcome of the value in flight's `.send`: sent, full (it waits), or failed.
    case sendFinished(SendOutcome)
    /// The carrier's socket can take more after `.sendFinished(.full)` (the `AcquireWrite`
    /// socket's characteristic, or the lane).
    case carrierWritable(Carrier)
    /// The `AcquireWrite` socket closed (BlueZ released it or the link dropped).
    case writeSocketClosed
    case readFinished(CharacteristicRole, Result<[UInt8], BlueZError>)
    /// The lane characteristic was read (the peripheral's PSM and token: `LaneOffer`).
    case lanePSMRead(Result<[UInt8], BlueZError>)
    /// The L2CAP channel opened; `mtu`: the room for values on it.
    case laneOpened(MTU)
    /// The channel did not open.
    case laneOpenFailed(LaneEnd)
    /// Bytes arrived on the channel.
    case laneReceived([UInt8])
    /// The channel hung up (the backend has closed it).
    case laneClosed
    /// A characteristic object under a device went away (its service was removed: relay-peripheral stopped?).
    case relayCharacteristicRemoved(CharacteristicID)
    /// Our agent was asked for the passkey of a pairing with the device.
    case passkeyRequested(DeviceID)
    /// bluetoothd cancelled the agent's request.
    case pairingCancelled
    /// `Device1.Pair` replied (nil: paired).
    case pairFinished(DeviceID, BlueZError?)
    /// `Adapter1.RemoveDevice` replied (nil: the bond is forgotten).
    case unpairFinished(DeviceID, BlueZError?)
}
