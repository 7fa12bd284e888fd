import RelayApp
import RelayBlueZ
import RelayProtocol

/// What the session asks the driver to do, in order: what every program asks for (reports,
/// command ends, timers, messages and files received), which the driver performs, and its own
/// calls on bluetoothd, which `CentralPerformer` performs.
enum CentralAction: Equatable, Sendable, ProgramActions {
    /// Reports, command ends, timers, messages and files received (`ProgramActions` names them).
    case program(ProgramAction<CentralEvent, CentralTimer, CentralProblem>)
    /// Set the discovery filter (these service UUIDs, none: every device; LE transport) and start discovery.
    case startDiscovery(services: [BluetoothUUID])
    case stopDiscovery
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
    /// Open an L2CAP channel to the device's `psm` within `timeout` seconds; answer `laneOpened`
    /// or `laneOpenFailed`.
    case openLane(DeviceID, LanePSM, LaneSecurity, timeout: Double)
    /// Close the channel, if any (no `laneClosed` follows).
    case closeLane
    /// `Device1.Pair` through our agent (registered first if needed); answer `pairFinished`.
    case pair(DeviceID)
    /// Answer the agent's pending passkey request.
    case answerPasskey(Passkey)
    /// `Adapter1.RemoveDevice`; answer `unpairFinished`.
    case unpair(DeviceID)
}

extension CentralAction {
    var programAction: ProgramAction<CentralEvent, CentralTimer, CentralProblem>? {
        if case .program(let action) = self { return action }
        return nil
    }
}
