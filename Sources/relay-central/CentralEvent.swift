import RelayProtocol
import Shared

/// Everything relay-central reports: one human line, or one JSON object per line with `--json`.
enum CentralEvent: Equatable, Sendable {
    case state(AdapterState, adapter: AdapterInfo?)
    case scanning(timeout: Double?, seeking: SeekTarget?)
    case scanStopped(reason: ScanStopReason, found: Int, others: [String] = [])
    case discovered(Candidate)
    case connecting(Peer)
    case connected(Peer)
    /// Subscribed and MTU known; `path` says how values are written, `notify` how notifications arrive.
    case ready(Peer, mtu: MTU, path: WritePath, notify: NotifyPath)
    case mtu(MTU)
    case disconnected(Peer, reason: String)
    case reconnecting(BluetoothAddress)
    case counter(Counter)
    case written(Counter)
    /// The first frame of a message that needs more than one arrived.
    case receiving(ReassemblyProgress)
    case message(kind: MessageKind, length: Int, sha256: String, text: String?, file: String?)
    case dropped(DroppedPartial, reason: String)
    case sent(kind: MessageKind, length: Int, sha256: String, frames: Int, mtu: MTU)
    case read(CharacteristicRole, value: [UInt8])
    case list([Candidate])
    case status(CentralStatus)
    case error(String)

    /// Every event name, for `wait` and the documentation.
    static let names = [
        "state", "scanning", "scan-stopped", "discovered", "connecting", "connected", "ready", "mtu",
        "disconnected", "reconnecting", "counter", "written", "receiving", "message", "dropped", "sent", "read", "list",
        "status", "error",
    ]
}

/// What `status` shows.
struct CentralStatus: Equatable, Sendable {
    var adapter: AdapterInfo?
    var adapterState: AdapterState
    var link: String
    var peer: Peer?
    var mtu: MTU?
    var path: WritePath?
    var scanning: Bool
    var candidates: Int
    var nextCounter: Counter
    var lastReceived: Counter?
    var messagesReceived: Int
    var messagesSent: Int
    var pendingSends: Int
}

extension CentralEvent: ReportableEvent {
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
        case .counter: return "counter"
        case .written: return "written"
        case .receiving: return "receiving"
        case .message: return "message"
        case .dropped: return "dropped"
        case .sent: return "sent"
        case .read: return "read"
        case .list: return "list"
        case .status: return "status"
        case .error: return "error"
        }
    }

    var fields: [(String, JSONValue)] {
        switch self {
        case .state(let state, let adapter):
            var fields: [(String, JSONValue)] = [("state", .string(state.word))]
            if let adapter {
                fields.append(("adapter", .string(adapter.name)))
                if let address = adapter.address { fields.append(("address", .string(address.description))) }
            }
            if let problem = state.problem, state != .unknown { fields.append(("detail", .string(problem))) }
            return fields
        case .scanning(let timeout, let seeking):
            var fields: [(String, JSONValue)] = [("service", .string(RelayProfile.service.description))]
            if let timeout { fields.append(("timeout", .number(timeout))) }
            if let seeking { fields.append(("seeking", .string(seeking.description))) }
            return fields
        case .scanStopped(let reason, let found, let others):
            var fields: [(String, JSONValue)] = [("reason", .string(reason.rawValue)), ("found", .integer(Int64(found)))]
            if !others.isEmpty { fields.append(("others", .array(others.map { .string($0) }))) }
            return fields
        case .discovered(let candidate):
            return Self.candidateFields(candidate)
        case .connecting(let peer), .connected(let peer):
            return Self.peerFields(peer)
        case .ready(let peer, let mtu, let path, let notify):
            return Self.peerFields(peer) + [
                ("mtu", .integer(Int64(mtu.value))), ("maxValue", .integer(Int64(mtu.maxValueLength))),
                ("path", .string(path.rawValue)), ("notify", .string(notify.rawValue)),
            ]
        case .mtu(let mtu):
            return [("mtu", .integer(Int64(mtu.value)))]
        case .disconnected(let peer, let reason):
            return Self.peerFields(peer) + [("reason", .string(reason))]
        case .reconnecting(let address):
            return [("address", .string(address.description))]
        case .counter(let counter), .written(let counter):
            return [("value", .unsigned(counter.value))]
        case .receiving(let progress):
            return [
                ("id", .integer(Int64(progress.id.value))), ("kind", .string(progress.kind.description)),
                ("length", .integer(Int64(progress.total))), ("received", .integer(Int64(progress.received))),
            ]
        case .message(let kind, let length, let sha256, let text, let file):
            var fields: [(String, JSONValue)] = [
                ("kind", .string(kind.description)), ("length", .integer(Int64(length))), ("sha256", .string(sha256)),
            ]
            if let text { fields.append(("text", .string(text))) }
            if let file { fields.append(("file", .string(file))) }
            return fields
        case .dropped(let partial, let reason):
            return [
                ("id", .integer(Int64(partial.id.value))), ("kind", .string(partial.kind.description)),
                ("received", .integer(Int64(partial.received))), ("length", .integer(Int64(partial.total))),
                ("reason", .string(reason)),
            ]
        case .sent(let kind, let length, let sha256, let frames, let mtu):
            return [
                ("kind", .string(kind.description)), ("length", .integer(Int64(length))), ("sha256", .string(sha256)),
                ("frames", .integer(Int64(frames))), ("mtu", .integer(Int64(mtu.value))),
            ]
        case .read(let role, let value):
            var fields: [(String, JSONValue)] = [
                ("characteristic", .string(role.rawValue)), ("hex", .string(Self.hex(value))),
                ("length", .integer(Int64(value.count))),
            ]
            if let counter = try? Counter(parsing: value) { fields.append(("value", .unsigned(counter.value))) }
            return fields
        case .list(let candidates):
            return [("candidates", .array(candidates.map { .object(Self.candidateFields($0)) }))]
        case .status(let status):
            return Self.statusFields(status)
        case .error(let message):
            return [("message", .string(message))]
        }
    }

    var humanDescription: String {
        switch self {
        case .state(let state, let adapter):
            let on = adapter.map { " (\($0))" } ?? ""
            if let problem = state.problem, state != .unknown { return "Bluetooth is \(state.phrase)\(on): \(problem)" }
            return "Bluetooth is \(state.phrase)\(on)"
        case .scanning(let timeout, let seeking):
            if let seeking { return "Scanning for \(seeking)…" }
            let limit = timeout.map { " for \(Self.seconds($0)) s" } ?? ""
            return "Scanning\(limit) for relay peripherals…"
        case .scanStopped(let reason, let found, let others):
            switch reason {
            case .timeout where found == 0:
                let seen = others.isEmpty ? "" : "; seen but not candidates: " + others.joined(separator: ", ")
                return "Scan stopped: nothing found (is the peripheral on, in range and advertising? try 'start' on it, then scan again)\(seen)"
            case .timeout: return "Scan stopped after the time-out: \(found) found (connect N)"
            case .requested: return "Scan stopped: \(found) found"
            case .connecting: return "Scan stopped to connect"
            case .adapterLost: return "Scan stopped: the adapter went away"
            }
        case .discovered(let candidate):
            return "[\(candidate.index)] \(candidate.address) \(candidate.name) RSSI \(candidate.rssi.map(String.init) ?? "?")"
        case .connecting(let peer): return "Connecting to \(peer)…"
        case .connected(let peer): return "Connected to \(peer), resolving services…"
        case .ready(let peer, let mtu, let path, let notify):
            return "Ready: subscribed to \(peer), MTU \(mtu) (values up to \(mtu.maxValueLength) bytes, via \(path.rawValue); notifications via \(notify.rawValue))"
        case .mtu(let mtu): return "MTU is now \(mtu)"
        case .disconnected(let peer, let reason): return "Disconnected from \(peer): \(reason)"
        case .reconnecting(let address): return "Reconnecting to \(address)…"
        case .counter(let counter): return "Received \(counter)"
        case .written(let counter): return "Wrote \(counter)"
        case .receiving(let progress):
            return "Receiving message \(progress.id): \(progress.kind), \(progress.total) bytes…"
        case .message(let kind, let length, let sha256, let text, let file):
            var line: String
            if let text {
                line = "Message (\(length) bytes): \(text)"
            } else {
                line = "Message: \(kind), \(length) bytes, sha256 \(sha256)"
            }
            if let file { line += " (saved to \(file))" }
            return line
        case .dropped(let partial, let reason): return "Dropped \(partial): \(reason)"
        case .sent(let kind, let length, _, let frames, let mtu):
            return "Sent \(kind) message: \(length) bytes in \(frames) frames at MTU \(mtu)"
        case .read(let role, let value):
            let counter = (try? Counter(parsing: value)).map { " (counter \($0))" } ?? ""
            return "\(role.rawValue) characteristic: \(value.isEmpty ? "empty" : Self.hex(value))\(counter)"
        case .list(let candidates):
            if candidates.isEmpty { return "No peripherals found yet (scan first)" }
            return candidates.map {
                "[\($0.index)] \($0.address) \($0.name) RSSI \($0.rssi.map(String.init) ?? "?")"
            }.joined(separator: "\n")
        case .status(let status): return Self.statusText(status)
        case .error(let message): return "error: \(message)"
        }
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

    private static func statusFields(_ status: CentralStatus) -> [(String, JSONValue)] {
        [
            ("adapter", status.adapter.map { .string($0.name) } ?? .null),
            ("adapterAddress", status.adapter?.address.map { .string($0.description) } ?? .null),
            ("state", .string(status.adapterState.word)), ("link", .string(status.link)),
            ("peer", status.peer.map { .string($0.address.description) } ?? .null),
            ("mtu", status.mtu.map { .integer(Int64($0.value)) } ?? .null),
            ("path", status.path.map { .string($0.rawValue) } ?? .null),
            ("scanning", .bool(status.scanning)), ("candidates", .integer(Int64(status.candidates))),
            ("nextCounter", .unsigned(status.nextCounter.value)),
            ("lastReceived", status.lastReceived.map { .unsigned($0.value) } ?? .null),
            ("messagesReceived", .integer(Int64(status.messagesReceived))),
            ("messagesSent", .integer(Int64(status.messagesSent))),
            ("pendingSends", .integer(Int64(status.pendingSends))),
        ]
    }

    private static func statusText(_ status: CentralStatus) -> String {
        var lines = [
            "adapter:   \(status.adapter?.description ?? "none") — \(status.adapterState.phrase)",
            "link:      \(status.link)\(status.peer.map { " — \($0)" } ?? "")",
        ]
        if let mtu = status.mtu {
            lines.append("MTU:       \(mtu) (values up to \(mtu.maxValueLength) bytes, via \(status.path?.rawValue ?? "?"))")
        }
        lines.append("scanning:  \(status.scanning ? "yes" : "no"), \(status.candidates) candidate(s)")
        lines.append("counter:   next write \(status.nextCounter), received \(status.lastReceived.map(\.description) ?? "not yet received")")
        lines.append("messages:  \(status.messagesReceived) received, \(status.messagesSent) sent, \(status.pendingSends) pending")
        return lines.joined(separator: "\n")
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return out
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
