import RelayApp
import RelayBlueZ
import RelayProtocol

/// Identifies one registration request, so a late reply to an older request (for example
/// from before a bluetoothd restart) is recognised and ignored.
struct RegistrationTicket: Hashable, Sendable, CustomStringConvertible {
    let value: Int
    var description: String { "#\(value)" }
}

/// What the session asks its driver to do; the driver performs the I/O and feeds the
/// outcome back as a `PeripheralInput`.
enum PeripheralAction: Equatable, Sendable {
    /// `GattManager1.RegisterApplication`; answer with `.applicationRegistered`/`.applicationFailed`.
    case registerApplication(RegistrationTicket)
    /// `GattManager1.UnregisterApplication` (errors are ignored).
    case unregisterApplication
    /// `LEAdvertisingManager1.RegisterAdvertisement` with this LocalName; answer with
    /// `.advertisementRegistered`/`.advertisementFailed`.
    case registerAdvertisement(RegistrationTicket, name: AdvertisedName)
    /// `LEAdvertisingManager1.UnregisterAdvertisement` (errors are ignored).
    case unregisterAdvertisement
    /// Print and record an event.
    case report(PeripheralEvent)
    /// Print an informational line (not an event).
    case note(String)
    /// Hand one value to bluetoothd as a notification of `on`; answer with `.notifyOutcome`.
    case notify([UInt8], on: RelayCharacteristic)
    /// Set what a read of `of` (the write or the notify characteristic) returns.
    case setReadValue([UInt8], of: RelayCharacteristic)
    /// Feed `.sendTimerFired` after `seconds` (the pause between unpaced bursts).
    case pauseSending(seconds: Double)
    /// A complete message: save it into `--save-dir` (if set), then report it (and a problem, if any).
    case deliver(MessageArrival)
    /// A file on its way in, with `--save-dir`: open, extend or remove its part file.
    case file(IncomingFileStep)
}

/// How one `.notify` went.
enum NotifyOutcome: Equatable, Sendable {
    /// Handed over; `throughSocket` when the `AcquireNotify` socket took it (it paces itself).
    case sent(throughSocket: Bool)
    /// The socket is full: offer the same value again after `.notifyWritable`.
    case wouldBlock
    case failed(NotifyFailure)
}

/// Why a notification could not be handed over.
enum NotifyFailure: Equatable, Sendable, CustomStringConvertible {
    /// No connection to bluetoothd.
    case noBluetoothd
    /// Nobody is subscribed any more.
    case noSubscriber
    case bluez(BlueZError)

    var description: String {
        switch self {
        case .noBluetoothd: return "not connected to bluetoothd"
        case .noSubscriber: return "no central is subscribed any more"
        case .bluez(let error): return error.description
        }
    }
}

/// What happened, as the driver tells the session.
enum PeripheralInput: Equatable, Sendable {
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
    /// A value written to the write characteristic at monotonic `time` (seconds).
    case written([UInt8], from: BluetoothAddress?, mtu: MTU?, time: Double)
    /// A value written to the session characteristic (protocol 2).
    case sessionWritten([UInt8], from: BluetoothAddress?, mtu: MTU?, time: Double)
    /// A value written to the UART service's RX characteristic (a phone UART app's text).
    case uartWritten([UInt8], from: BluetoothAddress?, mtu: MTU?, time: Double)
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
    /// The outcome of the last `.notify`.
    case notifyOutcome(NotifyOutcome)
    /// The notification socket can take more after `.wouldBlock`.
    case notifyWritable
    /// The pause asked for with `.pauseSending` is over.
    case sendTimerFired
    /// Another bus client called our objects at `time` (the bus layer refused it).
    case refusedCall(RefusedCall, time: Double)
    /// `--secure`: the pairing agent or a device object reported on a pairing.
    case pairing(PairingInput)
    /// The monotonic clock reached `now` (seconds): partial messages that stalled are dropped.
    case tick(now: Double)
    /// A message the driver was handed (`.deliver`) was saved into `--save-dir`, or could not be.
    case saved(SaveReceipt)
}

/// Why a registration failed; the line is made in `description`.
enum RegistrationFailure: Equatable, Sendable, CustomStringConvertible {
    /// There was no adapter to register on.
    case noAdapter
    /// `RegisterApplication` failed on `adapter`.
    case application(BlueZError, adapter: String)
    /// `RegisterAdvertisement` of `name` failed on `adapter`, which reported `supports`.
    case advertisement(BlueZError, adapter: String, name: String, supports: String?)

    /// Whether bluetoothd's bus policy refused us.
    var isAccessDenied: Bool {
        switch self {
        case .noAdapter: return false
        case .application(let error, _), .advertisement(let error, _, _, _): return error.kind == .accessDenied
        }
    }

    var description: String {
        switch self {
        case .noAdapter:
            return "no adapter to register on"
        case .application(let error, let adapter):
            return "cannot register the GATT service on \(adapter): \(error)"
        case .advertisement(let error, let adapter, let name, let supports):
            let fix: String
            switch error.kind {
            case .notPermitted:
                fix =
                    "every advertising slot is in use: stop other advertisers (another relay-peripheral, "
                    + "'bluetoothctl advertise off') and type start again"
            case .failed, .invalidLength, .invalidArguments:
                fix =
                    "the adapter refused the advertisement: try a shorter --name, check that the adapter supports LE "
                    + "advertising (btmgmt info) and see bluetoothd's log"
            case .accessDenied:
                fix = AdapterProblem.accessDenied.description
            default:
                fix = error.hint.isEmpty ? "see bluetoothd's log (journalctl -u bluetooth)" : error.hint
            }
            let supported = supports.map { " — \(adapter) advertising: \($0)" } ?? ""
            return
                "cannot advertise as '\(name)' on \(adapter): \(error.name): \(error.message)\(supported); fix: \(fix)"
        }
    }
}

/// The relay characteristics: the two of the original apps (which centrals can read) and the
/// session characteristic of protocol 2.
enum RelayCharacteristic: Equatable, Sendable {
    case write
    case notify
    case session
    /// The UART service's TX (NUS): text for phone UART apps.
    case uartTX
}
