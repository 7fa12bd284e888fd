import RelayProtocol
import Shared

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
    /// Values wait in the outbox: take them with `takeNextValue()` as fast as the link allows.
    case startSending
    /// Write `bytes` to `path` (inside `--save-dir`), then report `event`; on failure report an
    /// error and `event` without its path.
    case save(bytes: [UInt8], path: String, event: PeripheralEvent)
}

/// What happened, as the driver tells the session.
enum PeripheralInput: Equatable, Sendable {
    /// The adapter's state (also: bluetoothd left, the adapter vanished, the bus refused us).
    case adapter(AdapterStatus, name: String?)
    case applicationRegistered(RegistrationTicket)
    case applicationFailed(RegistrationTicket, String)
    case advertisementRegistered(RegistrationTicket)
    case advertisementFailed(RegistrationTicket, String)
    /// bluetoothd called `Release` on the advertisement: it is gone.
    case advertisementReleased
    case connected(BluetoothAddress)
    case disconnected(BluetoothAddress)
    /// A central's MTU, from a `WriteValue`/`ReadValue` option or an acquired socket.
    case mtu(BluetoothAddress, MTU)
    /// A value written to the write characteristic at monotonic `time` (seconds).
    case written([UInt8], from: BluetoothAddress?, mtu: MTU?, time: Double)
    /// Notifications were enabled (`StartNotify`, or `AcquireNotify` with its device and MTU).
    case notifyStarted(from: BluetoothAddress?, mtu: MTU?)
    /// Notifications were disabled (`StopNotify`, or the acquired socket closed).
    case notifyStopped(from: BluetoothAddress?)
    /// The monotonic clock reached `now` (seconds): partial messages stalled for
    /// `PeripheralSession.reassemblyIdleTimeout` are dropped.
    case tick(now: Double)
}

/// The two characteristics a central can read.
enum RelayCharacteristic: Sendable {
    case write
    case notify
}

/// Why a read was refused (maps to `org.bluez.Error.InvalidOffset`).
enum ReadFailure: Error, Equatable, Sendable {
    case invalidOffset(offset: Int, length: Int)
}
