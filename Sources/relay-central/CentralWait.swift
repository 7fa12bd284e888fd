/// What a relay-central command waits for before it finishes (`PendingCommands`).
enum CentralWait: Hashable, Sendable {
    /// `scan`: the discovery started.
    case scan
    /// `connect`: the link ready (or the pairing's passkey asked for).
    case connect
    /// `disconnect`: the link gone.
    case disconnect
    /// `read`: both characteristics read.
    case read
    /// `pair`: the pairing done.
    case pair
    /// `unpair`: the bond forgotten.
    case unpair
    /// `write`: the counter written (the session's `n`-th write).
    case counter(Int)
    /// `send` / `send-file`: the message's `sent` (protocol 2: or its end), by its number.
    case message(Int)

    /// Whether the link's end ends what it waits for (a read, a message waiting for the handshake).
    var endsWithLink: Bool {
        switch self {
        case .read: true
        case .scan, .connect, .disconnect, .pair, .unpair, .counter, .message: false
        }
    }
}
