/// How notification values travel between a program and bluetoothd (`--notify-path`).
public enum NotifyPath: String, Equatable, Sendable, CaseIterable {
    /// A socket from `AcquireNotify`: one datagram per value, no dbus-daemon hop. The peripheral
    /// writes notifications into it (writable readiness paces it); the central reads them from it.
    case socket
    /// D-Bus: the peripheral sets `Value` (`PropertiesChanged`) after `StartNotify`; the central
    /// calls `StartNotify` and reads `Value` changes.
    case signal
}
