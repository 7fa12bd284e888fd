import RelayBlueZ
import RelayProtocol

/// relay-central connecting by itself: to `--connect`'s target at start-up, again after a link
/// loss with `--reconnect`, or to resume protocol 2's messages. Part of `CentralSession` (see
/// `CentralSession+Connect`).
struct AutomaticConnection: Equatable, Sendable {
    /// The device to connect to by itself whenever possible (start-up, reconnect, resume).
    private(set) var target: SeekTarget?
    /// Whether the automatic connection comes from `--reconnect` or a resume (persistent) rather than a command.
    private(set) var persistent = false
    /// The address of the last peer that reached `ready`: a relay peripheral, even if its relay
    /// service is briefly missing (its program re-registering after a power cycle).
    private(set) var lastRelayAddress: BluetoothAddress?
    /// Automatic connection attempts in a row that failed (refused, timed out, relay service not
    /// there yet); sets the back-off, and starts over once ready.
    private(set) var retries = 0

    /// Connects to `target` by itself from now on: `persistent` for `--reconnect` and resumes
    /// (no scan time-out, retried with a back-off), else once (`--connect`, a `connect` command
    /// seeking an address).
    mutating func seek(_ target: SeekTarget, persistent: Bool) {
        self.target = target
        self.persistent = persistent
    }

    /// No more connecting by itself (a command took over, the link is up, or it gave up).
    mutating func cancel() {
        target = nil
        persistent = false
    }

    /// The link to `address` is ready: no more connecting by itself, and the back-off starts over.
    mutating func ready(_ address: BluetoothAddress) {
        cancel()
        lastRelayAddress = address
        retries = 0
    }

    /// One more attempt failed: the back-off step for the next one (0 for the first retry).
    mutating func retried() -> Int {
        defer { retries += 1 }
        return retries
    }
}
