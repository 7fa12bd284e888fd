import RelayBlueZ

/// The `read` command in progress: both characteristics are read, and it finishes with the second.
struct CentralReading: Equatable, Sendable {
    var pending = 0
    var failures: [ReadFailure] = []
    /// Values of the notify characteristic seen while a read of it is pending on the signal
    /// path: reading changes `Value` too, and that change is the read, not a notification.
    var valuesDuringRead: [[UInt8]]?
}
