import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayREPL

/// One of relay-central's own commands (the REPL adds `wait`, `sleep`, `help` and `quit`).
enum CentralCommand: Equatable, Sendable {
    case scan
    case scanStop
    case list
    case connect(ConnectTarget)
    /// `connect --nus`: this link is to a Nordic UART Service device.
    case connectUART(ConnectTarget)
    case disconnect
    /// Write the counter (or `value`, after which counting goes on from it).
    case write(value: UInt32?)
    /// A message to send; `send-file` reads the file first and hands over its bytes.
    case send(Message)
    case read
    case status
    /// Pair with the connected peripheral (secure mode).
    case pair
    /// Forget the bond with the peripheral.
    case unpair
    /// The passkey the peripheral shows, for the pairing in progress.
    case passkey(Passkey)
}

/// Everything that happens to the session: commands, and what BlueZ reported.
enum CentralInput: Equatable, Sendable {
    /// A command typed or piped, identified by `token` for its completion.
    case command(CentralCommand, token: CommandToken)
    /// The adapter's state (also: bluetoothd left, the adapter vanished, the bus refused us).
    case adapter(AdapterState, AdapterInfo?)
    case discoveryStarted
    case discoveryFailed(BlueZError)
    case scanTimerFired
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
    /// A characteristic's `Value` changed (a `PropertiesChanged` signal) at loop time `at`: on
    /// the notify characteristic, a notification on the signal path, or the echo of a read.
    case valueChanged(CharacteristicID, [UInt8], at: Double = 0)
    /// A datagram from the `AcquireNotify` socket: a notification.
    case notification([UInt8], at: Double = 0)
    /// The value in flight was written (nil) or failed.
    case writeFinished(BlueZError?)
    /// The `AcquireWrite` socket is full and did not take `value`: the session keeps it.
    case writeBlocked([UInt8], to: CharacteristicID)
    /// The `AcquireWrite` socket can take more after `.writeBlocked`.
    case writeWritable
    /// The `AcquireWrite` socket closed (BlueZ released it or the link dropped).
    case writeSocketClosed
    case readFinished(CharacteristicRole, Result<[UInt8], BlueZError>)
    case reconnectTimerFired
    /// The wait for `Connected` to turn false after a `Disconnect` we asked for is over.
    case settleTimerFired
    /// The program is quitting: no more scanning or automatic connection; the driver disconnects.
    case quitting
    /// A characteristic object under a device went away (its service was removed: relay-peripheral stopped?).
    case relayCharacteristicRemoved(CharacteristicID)
    /// The monotonic clock reached `now` (seconds), the session's `nextDeadline`: the handshake,
    /// retransmissions, time-outs, a trace line, a UART line's idle gap.
    case tick(now: Double)
    /// A message the driver was handed (`.deliver`) was saved into `--save-dir`, or could not be.
    case saved(SaveReceipt)
    /// Our agent was asked for the passkey of a pairing with the device.
    case passkeyRequested(DeviceID)
    /// bluetoothd cancelled the agent's request.
    case pairingCancelled
    /// `Device1.Pair` replied (nil: paired).
    case pairFinished(DeviceID, BlueZError?)
    /// `Adapter1.RemoveDevice` replied (nil: the bond is forgotten).
    case unpairFinished(DeviceID, BlueZError?)
}

/// What the session asks the driver to do, in order.
enum CentralAction: Equatable, Sendable {
    case report(CentralEvent)
    /// Set the discovery filter (these service UUIDs, none: every device; LE transport) and start discovery.
    case startDiscovery(services: [BluetoothUUID])
    case stopDiscovery
    case startScanTimer(seconds: Double)
    case cancelScanTimer
    /// `Device1.Connect` within `timeout` seconds.
    case connect(DeviceID, timeout: Double)
    case disconnect(DeviceID)
    /// Look up the characteristics under the device and answer `characteristicsFound`.
    case findCharacteristics(DeviceID)
    case startNotify(CharacteristicID)
    /// Subscribe through an `AcquireNotify` socket; answer `notifyAcquired` or `notifyAcquireFailed`.
    case acquireNotify(CharacteristicID)
    case acquireWrite(CharacteristicID)
    /// Read the characteristic's `MTU` property and answer `mtuRead`.
    case readMTU(CharacteristicID)
    /// Write one value; answer `writeFinished` when it is done (socket: queued; WriteValue: replied).
    case write([UInt8], via: WritePath, to: CharacteristicID)
    /// Close the `AcquireWrite` and `AcquireNotify` sockets, if any (made by `CentralSession.releaseSockets()`).
    case releaseSockets
    case readValue(CharacteristicRole, CharacteristicID)
    case startReconnectTimer(seconds: Double)
    case cancelReconnectTimer
    /// Arm (or re-arm) the timer that answers `settleTimerFired`.
    case startSettleTimer(seconds: Double)
    case cancelSettleTimer
    /// A complete message: save it into `--save-dir` (if set), then report it (and a problem, if any).
    case deliver(MessageArrival)
    /// A file on its way in, with `--save-dir`: open, extend or remove its part file.
    case file(IncomingFileStep)
    /// The command is finished: done (nil), or failed with the problem.
    case finish(CommandToken, CentralProblem?)
    /// `Device1.Pair` through our agent (registered first if needed); answer `pairFinished`.
    case pair(DeviceID)
    /// Answer the agent's pending passkey request.
    case answerPasskey(Passkey)
    /// `Adapter1.RemoveDevice`; answer `unpairFinished`.
    case unpair(DeviceID)
}

extension CentralAction: ReceivingActions {
    static func transfer(_ event: TransferEvent) -> CentralAction { .report(.transfer(event)) }
}
