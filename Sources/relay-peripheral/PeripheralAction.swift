import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayREPL

/// What the session asks its driver to do; the driver performs the I/O and feeds the
/// outcome back as a `PeripheralInput`.
enum PeripheralAction: Equatable, Sendable {
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
    /// Print and record an event.
    case report(PeripheralEvent)
    /// Print an informational line (not an event).
    case note(String)
    /// Hand one value to bluetoothd as a notification of `on`; answer with `.notifyOutcome`.
    case notify([UInt8], on: RelayCharacteristic)
    /// Send these service data units, in order, on the channel until its socket is full; answer
    /// `.laneTook` (then `.laneWritable` when it was full), or `.laneClosed` when it failed.
    case sendOnLane(LaneID, [[UInt8]])
    /// Close a channel (no `.laneClosed` follows).
    case closeLane(LaneID)
    /// End the link of the central at this address (`Device1.Disconnect`; `.disconnected` follows).
    case disconnect(BluetoothAddress)
    /// Set what a read of `of` (the write or the notify characteristic) returns.
    case setReadValue([UInt8], of: RelayCharacteristic)
    /// Feed `.sendTimerFired` after `seconds` (the pause between unpaced bursts).
    case pauseSending(seconds: Double)
    /// A complete message: save it into `--save-dir` (if set), then report it (and a problem, if any).
    case deliver(MessageArrival)
    /// A file on its way in, with `--save-dir`: open, extend or remove its part file.
    case file(IncomingFileStep)
    /// The command is finished: done (nil), or refused with the problem.
    case finish(CommandToken, PeripheralProblem?)
}

extension PeripheralAction: ReceivingActions {
    static func transfer(_ event: TransferEvent) -> PeripheralAction { .report(.transfer(event)) }
}
