import RelayBlueZ
import RelayCLI

/// Why a pairing did not end in a bond.
public enum PairingFailure: Equatable, Sendable, CustomStringConvertible {
    /// The passkey typed was not the one shown.
    case wrongPasskey
    /// No passkey was typed in time (bluetoothd gave up).
    case timedOut
    /// bluetoothd or the other side cancelled it.
    case cancelled
    /// The other side asked to pair without a passkey (just works): refused in secure mode.
    case withoutPasskey
    /// A passkey was shown but the central left without completing the pairing.
    case notCompleted
    /// A central connected to a secure peripheral and left without pairing or a bond (what it
    /// wrote, if anything, bluetoothd refused).
    case notPaired
    /// Another failure, as bluetoothd reported it.
    case bluetooth(BlueZError)

    /// The failure bluetoothd reported to `Device1.Pair`.
    public init(_ error: BlueZError) {
        switch error.kind {
        case .authenticationFailed, .authenticationRejected: self = .wrongPasskey
        case .authenticationTimeout, .noReply: self = .timedOut
        case .authenticationCanceled, .canceled: self = .cancelled
        default: self = .bluetooth(error)
        }
    }

    /// The JSON `reason`: one word for scripts.
    public var code: String {
        switch self {
        case .wrongPasskey: return "wrong-passkey"
        case .timedOut: return "timed-out"
        case .cancelled: return "cancelled"
        case .withoutPasskey: return "without-passkey"
        case .notCompleted: return "not-completed"
        case .notPaired: return "not-paired"
        case .bluetooth: return "bluetooth"
        }
    }

    public var description: String {
        switch self {
        case .wrongPasskey: return "wrong passkey"
        case .timedOut: return "no passkey typed in time"
        case .cancelled: return "cancelled"
        case .withoutPasskey: return "it asked to pair without a passkey (secure mode pairs with a passkey only)"
        case .notCompleted: return "it left before the pairing completed (a wrong passkey?)"
        case .notPaired: return "it connected and left without pairing (bluetoothd refused anything it wrote)"
        case .bluetooth(let error): return error.description
        }
    }
}

/// The events of pairing, shared by both programs: the same names, JSON fields and lines.
public enum PairingEvent: Equatable, Sendable {
    /// relay-peripheral: a central is pairing; the passkey to type on it.
    case passkey(PeerName, Passkey)
    /// relay-central: the peripheral asks for its passkey (answer with `passkey NNNNNN`).
    case request(PeerName)
    /// A bond was made (kept by bluetoothd: reconnecting needs no passkey).
    case paired(PeerName)
    case failed(PeerName, PairingFailure)
    /// relay-central: `unpair` made bluetoothd forget the bond.
    case unpaired(PeerName)

    /// The names relay-peripheral reports (for `wait` and completion).
    public static let peripheralNames = ["pairing", "paired", "pairing-failed"]
    /// The names relay-central reports.
    public static let centralNames = ["pairing-request", "paired", "pairing-failed", "unpaired"]

    public var name: String {
        switch self {
        case .passkey: return "pairing"
        case .request: return "pairing-request"
        case .paired: return "paired"
        case .failed: return "pairing-failed"
        case .unpaired: return "unpaired"
        }
    }

    public var fields: [(String, JSONValue)] {
        switch self {
        case .passkey(let peer, let passkey):
            return [("address", peer.json), ("passkey", .string(passkey.description))]
        case .request(let peer), .paired(let peer), .unpaired(let peer): return [("address", peer.json)]
        case .failed(let peer, let failure):
            return [
                ("address", peer.json), ("reason", .string(failure.code)), ("message", .string(failure.description)),
            ]
        }
    }

    public var humanDescription: String {
        switch self {
        case .passkey(let peer, let passkey):
            return "\(peer) is pairing: passkey \(passkey) (type passkey \(passkey) on the central)"
        case .request:
            return "this peripheral requires pairing: type the passkey it shows (passkey NNNNNN)"
        case .paired(let peer): return "paired with \(peer): the bond is kept, a reconnect needs no passkey"
        case .failed(let peer, let failure): return "pairing with \(peer) failed: \(failure)"
        case .unpaired(let peer): return "forgot the bond with \(peer): the next connection pairs again"
        }
    }
}
