import RelayCLI
import RelayProtocol

/// `--lane`: whether protocol 2's messages may travel on an LE L2CAP channel beside GATT
/// (docs/protocol.md, "The L2CAP lane").
public enum LaneChoice: String, Sendable, Equatable, CaseIterable {
    /// GATT only: no listener, no lane characteristic, no channel opened.
    case gatt
    /// The lane when both sides offer it; GATT otherwise, or when it breaks (one line says so).
    case l2cap
    /// As `l2cap`, but a peer without the lane is not worth a line.
    case auto

    /// Whether this side offers and uses the lane.
    public var usesLane: Bool { self != .gatt }
}

/// Which way a link's messages travel, as `ready` and `status` say it.
public enum MessageLane: String, Sendable, Equatable {
    /// The session characteristic through bluetoothd.
    case gatt
    /// An LE credit-based L2CAP channel, one socket per central.
    case l2cap
}

/// One L2CAP channel of relay-peripheral's listener, as its backend numbers them.
public struct LaneID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let value: Int

    public init(_ value: Int) { self.value = value }

    public static func < (lhs: LaneID, rhs: LaneID) -> Bool { lhs.value < rhs.value }

    public var description: String { "lane \(value)" }
}

/// Why a lane closed, was refused or was not used.
public enum LaneEnd: Error, Equatable, Sendable, CustomStringConvertible {
    /// The channel's socket hung up or failed (the link went down, the peer closed it).
    case hungUp
    /// The channel could not be opened (the socket's call and error, as text).
    case couldNotOpen(String)
    /// The peer offers no lane (an older relay, or `--lane gatt`).
    case notOffered
    /// The lane's characteristic does not name a usable PSM.
    case badPSM(String)
    /// The hello sent on the channel went unanswered.
    case unanswered
    /// The bytes on the channel broke the lane's framing.
    case malformed(String)
    /// relay-peripheral: the central did not read the lane characteristic over GATT on its current
    /// link (a channel comes second).
    case notConnected
    /// relay-peripheral: the central is not in `--allow`.
    case notAllowed
    /// relay-peripheral: the central broke protocol 2 on this link (its channels close with its
    /// session; none is kept until it connects again).
    case cutOff
    /// relay-peripheral: two links answer to the central's address (a pairing gave it as another
    /// link's identity): nothing named by it is taken until they have gone.
    case contested
    /// relay-peripheral: the channel's MTU leaves less room for a value than the lane needs.
    case tooSmall(Int)
    /// relay-peripheral: the channel's socket was full, taking too little of what waited for it,
    /// for `seconds` of the last `window` seconds.
    case stalled(seconds: Int, window: Int)
    /// relay-peripheral could not listen (the socket's call and error, as text).
    case cannotListen(String)
    /// relay-central: the welcome on the channel named another peripheral token than the lane
    /// characteristic read over GATT: its end is not the peripheral's relay (a local process
    /// that took the PSM's channels first).
    case unproven(welcomed: SessionToken, offered: SessionToken)

    /// The JSON `reason`: one word for scripts.
    public var code: String {
        switch self {
        case .hungUp: "hung-up"
        case .couldNotOpen: "could-not-open"
        case .notOffered: "not-offered"
        case .badPSM: "bad-psm"
        case .unanswered: "unanswered"
        case .malformed: "malformed"
        case .notConnected: "not-connected"
        case .notAllowed: "not-allowed"
        case .cutOff: "cut-off"
        case .contested: "contested"
        case .tooSmall: "too-small"
        case .stalled: "stalled"
        case .cannotListen: "cannot-listen"
        case .unproven: "unproven"
        }
    }

    public var description: String {
        switch self {
        case .hungUp: "the channel hung up"
        case .couldNotOpen(let why): "the channel could not be opened (\(why))"
        case .notOffered: "it offers no L2CAP lane"
        case .badPSM(let why): why
        case .unanswered: "the hello on the channel went unanswered"
        case .malformed(let why): "it broke the lane's framing: \(why)"
        case .notConnected: "it did not read the lane characteristic over GATT first"
        case .notAllowed: "it is not in --allow"
        case .cutOff: "it broke protocol 2 on this link"
        case .contested: "two links answer to its address"
        case .tooSmall(let mtu): "its channel's MTU is \(mtu) bytes; the lane needs 492 (values of 490)"
        case .stalled(let seconds, let window): "its channel was full for \(seconds) s of the last \(window) s"
        case .cannotListen(let why): "no L2CAP listener (\(why))"
        case .unproven(let welcomed, let offered):
            "the channel's end is not the peripheral's relay: its welcome names peripheral \(welcomed), "
                + "the lane characteristic \(offered)"
        }
    }
}

/// The lane events both programs report (`lane`): one name, one JSON shape, one line each.
public enum LaneEvent: Equatable, Sendable {
    /// A channel carries this peer's messages; values up to `valueLength` bytes.
    case open(PeerName, psm: LanePSM?, valueLength: Int)
    /// The lane of this peer is not used (any more): its messages go on GATT.
    case closed(PeerName, LaneEnd)
    /// relay-peripheral refused a channel.
    case refused(PeerName, LaneEnd)
    /// relay-peripheral listens on `psm` (published in the lane characteristic), or cannot.
    case listening(LanePSM)
    case unavailable(LaneEnd)

    public static let name = "lane"

    public var fields: [(String, JSONValue)] {
        switch self {
        case .open(let peer, let psm, let length):
            return [("state", .string("open")), ("address", peer.json)]
                + (psm.map { [("psm", .integer(Int64($0.value)))] } ?? [])
                // JSON keys are lowerCamelCase (docs/cli.md, "Events"); `max_value`, this key's
                // name in 0.3, is sent too until the release after 0.4.
                + [("maxValue", .integer(Int64(length))), ("max_value", .integer(Int64(length)))]
        case .closed(let peer, let end):
            return [
                ("state", .string("closed")), ("address", peer.json), ("reason", .string(end.code)),
                ("message", .string(end.description)),
            ]
        case .refused(let peer, let end):
            return [
                ("state", .string("refused")), ("address", peer.json), ("reason", .string(end.code)),
                ("message", .string(end.description)),
            ]
        case .listening(let psm):
            return [("state", .string("listening")), ("psm", .integer(Int64(psm.value)))]
        case .unavailable(let end):
            return [
                ("state", .string("unavailable")), ("reason", .string(end.code)), ("message", .string(end.description)),
            ]
        }
    }

    public var humanDescription: String {
        switch self {
        case .open(let peer, let psm, let length):
            let on = psm.map { " (PSM \($0))" } ?? ""
            return "lane open with \(peer): messages travel on an L2CAP channel\(on), values up to \(length) bytes"
        case .closed(let peer, let end):
            return "lane with \(peer) not used: \(end); messages go on GATT"
        case .refused(let peer, let end):
            return "lane refused to \(peer): \(end)"
        case .listening(let psm):
            return "L2CAP lane listening on PSM \(psm)"
        case .unavailable(let end):
            return "L2CAP lane unavailable: \(end); messages go on GATT"
        }
    }
}
