import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol

/// Everything relay-central reports: one human line, or one JSON object per line with `--json`.
enum CentralEvent: Equatable, Sendable {
    case state(AdapterState, adapter: AdapterInfo?)
    /// Discovery runs, filtered on `services` (none: every device).
    case scanning(timeout: Double?, seeking: SeekTarget?, services: [BluetoothUUID] = [RelayProfile.service])
    case scanStopped(reason: ScanStopReason, found: Int, others: [String] = [])
    case discovered(Candidate)
    case connecting(Peer)
    case connected(Peer)
    /// Subscribed and MTU known; `path` says how values are written, `notify` how notifications
    /// arrive, `protocolVersion` whether delivery is confirmed (2) or not (1); nil on a UART link
    /// (text, no relay protocol).
    /// `lane`: how protocol 2's messages travel (nil without protocol 2).
    case ready(Peer, mtu: MTU, path: WritePath, notify: NotifyPath, protocolVersion: Int?, lane: MessageLane? = nil)
    case mtu(MTU)
    case disconnected(Peer, reason: String)
    case reconnecting(BluetoothAddress)
    /// A `connect` command's attempt ended unanswered; it dials again for `remaining` seconds.
    case redial(Peer, reason: RedialReason, remaining: Double)
    /// A counter was written to the peripheral.
    case written(Counter)
    /// Counters and messages from the peripheral, and messages sent (shared with relay-peripheral).
    case transfer(TransferEvent)
    /// `--trace`: a value that went over the air, or how many were left out.
    case trace(TraceOutput)
    case read(CharacteristicRole, value: [UInt8])
    case list([Candidate])
    case status(CentralStatus)
    case error(CentralProblem)
    /// Secure mode: the peripheral asks for its passkey, a bond made or failed (shared with relay-peripheral).
    case pairing(PairingEvent)
    /// The L2CAP lane: a channel carries the messages, or it is not used (shared with relay-peripheral).
    case lane(LaneEvent)

    /// Every event name, for `wait` and the documentation.
    static let names =
        [
            "state", "scanning", "scan-stopped", "discovered", "connecting", "connected", "ready", "mtu",
            "disconnected", "reconnecting", "redial", "written", "read", "list", "status", "error", LaneEvent.name,
        ] + TransferEvent.names + ["trace", "trace-summary"] + PairingEvent.centralNames
}

extension CentralEvent: ProgramEvent {
    static func saveFailed(_ problem: String) -> CentralEvent { .error(.saveFailed(problem)) }

    var liveLine: LiveLine? {
        guard case .transfer(let event) = self else { return nil }
        return event.liveLine
    }

    var name: String {
        switch self {
        case .state: return "state"
        case .scanning: return "scanning"
        case .scanStopped: return "scan-stopped"
        case .discovered: return "discovered"
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .ready: return "ready"
        case .mtu: return "mtu"
        case .disconnected: return "disconnected"
        case .reconnecting: return "reconnecting"
        case .redial: return "redial"
        case .written: return "written"
        case .transfer(let event): return event.name
        case .trace(let trace): return trace.name
        case .read: return "read"
        case .list: return "list"
        case .status: return "status"
        case .error: return "error"
        case .pairing(let event): return event.name
        case .lane: return LaneEvent.name
        }
    }

    var fields: [(String, JSONValue)] {
        switch self {
        case .state(let state, let adapter):
            return state.eventFields(adapter: adapter)
        case .scanning(let timeout, let seeking, let services):
            var fields: [(String, JSONValue)] = [("service", services.first.map { .string($0.description) } ?? .null)]
            if let timeout { fields.append(("timeout", .number(timeout))) }
            if let seeking { fields.append(("seeking", .string(seeking.description))) }
            return fields
        case .scanStopped(let reason, let found, let others):
            var fields: [(String, JSONValue)] = [
                ("reason", .string(reason.rawValue)), ("found", .integer(Int64(found))),
            ]
            if !others.isEmpty { fields.append(("others", .array(others.map { .string($0) }))) }
            return fields
        case .discovered(let candidate):
            return Self.candidateFields(candidate)
        case .connecting(let peer), .connected(let peer):
            return Self.peerFields(peer)
        case .ready(let peer, let mtu, let path, let notify, let protocolVersion, let lane):
            return Self.peerFields(peer) + [
                ("mtu", .integer(Int64(mtu.value))), ("maxValue", .integer(Int64(mtu.maxValueLength(.write)))),
                ("path", .string(path.rawValue)), ("notify", .string(notify.rawValue)),
                ("service", .string(protocolVersion == nil ? MessageVia.nus.rawValue : MessageVia.relay.rawValue)),
                ("protocol", protocolVersion.map { .integer(Int64($0)) } ?? .null),
                ("lane", lane.map { .string($0.rawValue) } ?? .null),
            ]
        case .mtu(let mtu):
            return [("mtu", .integer(Int64(mtu.value)))]
        case .disconnected(let peer, let reason):
            return Self.peerFields(peer) + [("reason", .string(reason))]
        case .reconnecting(let address):
            return [("address", .string(address.description))]
        case .redial(let peer, let reason, let remaining):
            return Self.peerFields(peer) + [
                ("reason", .string(reason.description)), ("remaining", .number((remaining * 10).rounded() / 10)),
            ]
        case .written(let counter):
            return [("value", .unsigned(counter.value))]
        case .transfer(let event):
            return event.fields
        case .trace(let trace):
            return trace.fields
        case .read(let role, let value):
            var fields: [(String, JSONValue)] = [
                ("characteristic", .string(role.rawValue)), ("hex", .string(Hex.string(value))),
                ("length", .integer(Int64(value.count))),
            ]
            if let counter = try? Counter(parsing: value) { fields.append(("value", .unsigned(counter.value))) }
            return fields
        case .list(let candidates):
            return [("candidates", .array(candidates.map { .object(Self.candidateFields($0)) }))]
        case .status(let status):
            return status.fields
        case .error(let problem):
            return [("message", .string(problem.description))]
        case .pairing(let event):
            return event.fields
        case .lane(let event):
            return event.fields
        }
    }

    var humanDescription: String {
        switch self {
        case .state(let state, let adapter):
            return state.humanDescription(adapter: adapter)
        case .scanning(let timeout, let seeking, let services):
            if let seeking { return "scanning for \(seeking)…" }
            let limit = timeout.map { " for \(Self.seconds($0)) s" } ?? ""
            let what = services == [RelayProfile.service] ? "relay peripherals" : "UART (Nordic UART Service) devices"
            return "scanning\(limit) for \(what)…"
        case .scanStopped(let reason, let found, let others):
            switch reason {
            case .timeout where found == 0:
                let seen = others.isEmpty ? "" : "; seen but not candidates: " + others.joined(separator: ", ")
                return
                    "scan stopped: nothing found (is the peripheral on, in range and advertising? try 'start' on it, then scan again)\(seen)"
            case .timeout: return "scan stopped after the time-out: \(found) found (connect N)"
            case .requested: return "scan stopped: \(found) found"
            case .connecting: return "scan stopped to connect"
            case .adapterLost: return "scan stopped: the adapter went away"
            }
        case .discovered(let candidate):
            return Self.candidateLine(candidate)
        case .connecting(let peer): return "connecting to \(peer)…"
        case .connected(let peer): return "connected to \(peer), resolving services…"
        case .ready(let peer, let mtu, let path, let notify, let protocolVersion, let lane):
            guard let protocolVersion else {
                return "ready: UART (Nordic UART Service) link to \(peer), MTU \(mtu) (text in values up to "
                    + "\(mtu.sendValueLength(.write)) bytes, via \(path.rawValue); lines via \(notify.rawValue)): "
                    + "send TEXT writes a line"
            }
            let delivery =
                protocolVersion >= 2 ? "protocol 2: delivery confirmed" : "protocol 1: delivery not confirmed"
            return "ready: subscribed to \(peer), MTU \(mtu) (values up to \(mtu.maxValueLength(.write)) bytes, "
                + "via \(path.rawValue); notifications via \(notify.rawValue)); \(delivery)"
                + (lane == .l2cap ? ", messages on the L2CAP lane" : "")
        case .mtu(let mtu): return "MTU is now \(mtu)"
        case .disconnected(let peer, let reason): return "disconnected from \(peer): \(reason)"
        case .reconnecting(let address): return "reconnecting to \(address)…"
        case .redial(let peer, let reason, let remaining):
            return "\(peer) did not take the connection (\(reason)): dialling again, "
                + "for up to \(Int(remaining.rounded())) s more…"
        case .written(let counter): return "wrote counter \(counter)"
        case .transfer(let event): return event.humanDescription
        case .trace(let trace): return trace.humanDescription
        case .read(let role, let value):
            let counter = (try? Counter(parsing: value)).map { " (counter \($0))" } ?? ""
            return "\(role.rawValue) characteristic: \(value.isEmpty ? "empty" : Hex.string(value))\(counter)"
        case .list(let candidates):
            if candidates.isEmpty { return "no peripherals found yet (scan first)" }
            return candidates.map(Self.candidateLine).joined(separator: "\n")
        case .status(let status): return status.humanDescription
        case .error(let problem): return "error: \(problem)"
        case .pairing(let event): return event.humanDescription
        case .lane(let event): return event.humanDescription
        }
    }

    /// `[0] 00:AA:01:00:00:00 sample RSSI -48` (`RSSI n/a` when the controller did not say).
    private static func candidateLine(_ candidate: Candidate) -> String {
        "[\(candidate.index)] \(candidate.address) \(candidate.name) RSSI \(candidate.rssi.map(String.init) ?? "n/a")"
    }

    private static func peerFields(_ peer: Peer) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("address", .string(peer.address.description))]
        if let name = peer.name { fields.append(("name", .string(name))) }
        return fields
    }

    private static func candidateFields(_ candidate: Candidate) -> [(String, JSONValue)] {
        [
            ("index", .integer(Int64(candidate.index))), ("name", .string(candidate.name)),
            ("address", .string(candidate.address.description)),
            ("rssi", candidate.rssi.map { .integer(Int64($0)) } ?? .null),
        ]
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Why a `connect` command's attempt ended without the peripheral taking the connection.
enum RedialReason: Equatable, Sendable, CustomStringConvertible {
    /// bluetoothd forgot the device while it was being dialled (Linux ended the attempt).
    case forgotten
    /// `Connect` failed with this error, as when Linux ends an attempt.
    case unanswered(String)

    var description: String {
        switch self {
        case .forgotten:
            return "the attempt ended unanswered and bluetoothd forgot the device: "
                + "the peripheral may be busy taking other centrals"
        case .unanswered(let error):
            return "the attempt ended unanswered, \(error): the peripheral may be busy taking other centrals"
        }
    }
}
