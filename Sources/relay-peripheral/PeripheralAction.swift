import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayREPL

/// What the session asks its driver to do: what every program asks for (reports, lines,
/// command ends, the send pause's timer, messages and files received), which the driver
/// performs, and its own calls on bluetoothd, which `PeripheralPerformer` performs; each outcome
/// comes back as a `PeripheralInput`.
enum PeripheralAction: Equatable, Sendable, ProgramActions {
    /// Reports, lines, command ends, timers, messages and files received (`ProgramActions` names them).
    case program(ProgramAction<PeripheralEvent, PeripheralTimer, PeripheralProblem>)
    /// `GattManager1.RegisterApplication`; answer with `.applicationRegistered`/`.applicationFailed`.
    case registerApplication(RegistrationTicket)
    /// `GattManager1.UnregisterApplication` (errors are ignored).
    case unregisterApplication
    /// `LEAdvertisingManager1.RegisterAdvertisement` with this LocalName; answer with
    /// `.advertisementRegistered`/`.advertisementFailed`.
    case registerAdvertisement(RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval)
    /// `LEAdvertisingManager1.UnregisterAdvertisement` (errors are ignored).
    case unregisterAdvertisement
    /// `UnregisterAdvertisement`, and once bluetoothd answered it, `RegisterAdvertisement` again;
    /// answer as `.registerAdvertisement`. Not both at once: bluetoothd frees the old instance
    /// number only when idle after its answer, so a registration sent with the unregistration
    /// gets a new number, and Linux then restarts advertising at a central's disconnection for
    /// the number that is gone (non-connectable, from a random address).
    case renewAdvertisement(RegistrationTicket, name: AdvertisedName, interval: AdvertisingInterval)
    /// Hand these values, in order, to `on` until it is full: notifications of a characteristic
    /// (the session hands one value at a time) or a channel's service data units. Answer with
    /// `.sendFinished` (then `.carrierWritable` when it was full, or `.failed`).
    case send([[UInt8]], on: PeripheralCarrier)
    /// Close a channel (no `.laneClosed` follows).
    case closeLane(LaneID)
    /// End the link of the central at this address (`Device1.Disconnect`; `.disconnected` follows).
    case disconnect(BluetoothAddress)
    /// Set what a read of `of` (the write or the notify characteristic) returns.
    case setReadValue([UInt8], of: RelayCharacteristic)
}

extension PeripheralAction {
    var programAction: ProgramAction<PeripheralEvent, PeripheralTimer, PeripheralProblem>? {
        if case .program(let action) = self { return action }
        return nil
    }
}
