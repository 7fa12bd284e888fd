/// How a disconnection we asked for (`CentralSession.Link.disconnecting`) ends.
struct Leaving: Equatable {
    /// What the `disconnected` event says; nil: "disconnected on request".
    var reason: String?
    /// Whether to report `disconnected` at the end (not for a cancelled attempt that never connected).
    var reported = true
    /// Whether `Connected` was true while leaving: then its turning false ends the disconnection.
    var wasConnected = false
    /// Whether bluetoothd answered the `Disconnect`.
    var replied = false
    /// The pause before the automatic connection is tried again, in seconds (nil: at once, if wanted).
    var retryAfter: Double?
}
