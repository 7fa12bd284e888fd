import RelayApp
import RelayBlueZ
import RelayProtocol

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
    /// Send one value on its carrier (a characteristic by its write path, or the lane, which
    /// frames it); answer `sendFinished` (then `carrierWritable` when it was full).
    case send([UInt8], on: Carrier)
    /// Close the `AcquireWrite` and `AcquireNotify` sockets and the L2CAP channel, if any (made
    /// by `CentralSession.releaseSockets()`).
    case releaseSockets
    case readValue(CharacteristicRole, CharacteristicID)
    /// Read the lane characteristic; answer `lanePSMRead`.
    case readLanePSM(CharacteristicID)
    /// Open an L2CAP channel to the device's `psm`; answer `laneOpened` or `laneOpenFailed`.
    case openLane(DeviceID, LanePSM, LaneSecurity)
    /// Close the channel, if any (no `laneClosed` follows).
    case closeLane
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
