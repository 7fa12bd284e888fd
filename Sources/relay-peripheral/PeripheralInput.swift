import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayREPL

/// Everything that happens to the session (each comes with the loop's time: `handle(_:at:)`): what every program hears (commands, timers, the
/// deadline, saves, quitting), and what bluetoothd reported.
enum PeripheralInput: Equatable, Sendable, ProgramInputs {
    typealias Command = PeripheralCommand
    typealias Timer = PeripheralTimer
    /// Commands, timers, the deadline, saves, quitting (`ProgramInputs` names them).
    case program(ProgramInput<PeripheralCommand, PeripheralTimer>)
    /// The adapter's state (also: bluetoothd left, the adapter vanished, the bus refused us).
    case adapter(AdapterState, AdapterInfo?)
    case applicationRegistered(RegistrationTicket)
    case applicationFailed(RegistrationTicket, RegistrationFailure)
    case advertisementRegistered(RegistrationTicket)
    case advertisementFailed(RegistrationTicket, RegistrationFailure)
    /// bluetoothd called `Release` on the advertisement: it is gone.
    case advertisementReleased
    case connected(BluetoothAddress)
    case disconnected(BluetoothAddress)
    /// The central connected as `address` has bonded and bluetoothd now gives it its identity
    /// address (a resolvable random address resolved with the key it distributed). The central is
    /// still called `address` until it leaves; `--allow` also counts `identity`.
    case identityResolved(BluetoothAddress, identity: BluetoothAddress)
    /// A central's MTU, from a `WriteValue`/`ReadValue` option or an acquired socket.
    case mtu(BluetoothAddress, MTU)
    /// A value written to the write characteristic.
    case written([UInt8], from: BluetoothAddress?, mtu: MTU?)
    /// A value written to the session characteristic (protocol 2).
    case sessionWritten([UInt8], from: BluetoothAddress?, mtu: MTU?)
    /// A value written to the UART service's RX characteristic (a phone UART app's text).
    case uartWritten([UInt8], from: BluetoothAddress?, mtu: MTU?)
    /// Notifications on the UART service's TX were enabled (`AcquireNotify` names the central).
    case uartNotifyStarted(from: BluetoothAddress?, mtu: MTU?)
    /// Notifications on the UART service's TX were disabled (its last subscriber left).
    case uartNotifyStopped
    /// Notifications on the session characteristic were enabled (the first relay central).
    case sessionNotifyStarted(mtu: MTU?)
    /// Notifications on the session characteristic were disabled (the last relay central).
    case sessionNotifyStopped
    /// Notifications were enabled (`StartNotify`, or `AcquireNotify` with its device and MTU).
    case notifyStarted(from: BluetoothAddress?, mtu: MTU?)
    /// Notifications were disabled (`StopNotify`, or the acquired socket closed).
    case notifyStopped(from: BluetoothAddress?)
    /// The outcome of the last `.send` on `carrier`.
    case sendFinished(PeripheralCarrier, PeripheralSendOutcome)
    /// A carrier that was full (its last `.send` finished `full`) can take more.
    case carrierWritable(PeripheralCarrier)
    /// Another bus client called our objects (the bus layer refused it).
    case refusedCall(RefusedCall)
    /// `--secure`: the pairing agent or a device object reported on a pairing.
    case pairing(PairingInput)
    /// The lane listener listens on a PSM (published in the lane characteristic), or cannot.
    case laneListening(Result<LanePSM, LaneEnd>)
    /// A central read the lane characteristic (the PSM) over GATT (nil: bluetoothd did not say who).
    case lanePSMRead(by: BluetoothAddress?)
    /// A central opened an L2CAP channel (`mtu`: the room for values on it).
    case laneOpened(LaneID, from: BluetoothAddress, mtu: MTU, connection: ConnectionHandle? = nil)
    /// Bytes arrived on a channel.
    case laneReceived(LaneID, [UInt8])
    /// A channel hung up or failed (the backend has closed it).
    case laneClosed(LaneID)
}
