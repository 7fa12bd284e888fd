import RelayBlueZ
import RelayProtocol

/// relay-central connecting by itself: to `--connect`'s target at start-up, again after a link
/// loss with `--reconnect`, or to resume protocol 2's messages. Part of `CentralSession` (see
/// `CentralSession+Connect`).
struct AutomaticConnection: Equatable, Sendable {
    /// The device to connect to by itself whenever possible (start-up, reconnect, resume).
    var target: SeekTarget?
    /// Whether the automatic connection comes from `--reconnect` or a resume (persistent) rather than a command.
    var persistent = false
    /// The address of the last peer that reached `ready`: a relay peripheral, even if its relay
    /// service is briefly missing (its program re-registering after a power cycle).
    var lastRelayAddress: BluetoothAddress?
    /// Automatic connection attempts in a row that failed (refused, timed out, relay service not
    /// there yet); sets the back-off, and starts over once ready.
    var retries = 0
}
