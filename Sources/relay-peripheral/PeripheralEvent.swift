import RelayProtocol
import Shared

/// Why advertising stopped.
enum AdvertisingStopReason: String, Sendable {
    case command = "stop"
    case poweredOff = "powered-off"
    case unavailable = "not-available"
    case released = "released"
    case quit = "quit"
}

/// A message that arrived complete from a central.
struct ReceivedMessageReport: Equatable, Sendable {
    let from: BluetoothAddress?
    let kind: MessageKind
    let length: Int
    let sha256: String
    /// The text of a text message (valid UTF-8), else nil.
    let text: String?
    /// Where it was saved with `--save-dir`.
    let savedPath: String?
}

/// Everything relay-peripheral reports: one human line or one JSON object each, and
/// the names `wait EVENT` waits for.
enum PeripheralEvent: Equatable, Sendable {
    /// The adapter's state changed (powered on/off, not available, not permitted).
    case state(AdapterStatus, adapter: String?)
    /// The GATT application (service and both characteristics) is registered with bluetoothd.
    case registered
    /// The advertisement is registered: centrals can find `name`.
    case advertising(name: String)
    /// Advertising stopped.
    case stopped(AdvertisingStopReason)
    case connected(BluetoothAddress)
    case disconnected(BluetoothAddress)
    /// A central subscribed to the notify characteristic (address when BlueZ tells it).
    case subscribed(BluetoothAddress?, mtu: MTU?)
    case unsubscribed(BluetoothAddress?)
    /// A central's MTU became known or changed.
    case mtu(BluetoothAddress, MTU)
    /// A 4-byte value written by a central.
    case counter(from: BluetoothAddress?, value: UInt32)
    /// A counter was notified to `centrals` subscribed centrals.
    case notified(value: UInt32, centrals: Int)
    case message(ReceivedMessageReport)
    /// A partial message from `from` was lost (disconnect or protocol error).
    case dropped(from: BluetoothAddress?, received: Int, total: Int, reason: String)
    /// A framed message was handed to bluetoothd completely.
    case sent(kind: MessageKind, length: Int, sha256: String, frames: Int, mtu: MTU)
    /// Something failed; `from` names the central when it is about one.
    case error(String, from: BluetoothAddress?)
    /// The answer to `status`.
    case status(PeripheralStatus)

    /// Every event name, for `wait` and completion.
    static let names = [
        "state", "registered", "advertising", "stopped", "connected", "disconnected", "subscribed", "unsubscribed",
        "mtu", "counter", "notified", "message", "dropped", "sent", "error", "status",
    ]
}

extension PeripheralEvent: ReportableEvent {
    var name: String {
        switch self {
        case .state: return "state"
        case .registered: return "registered"
        case .advertising: return "advertising"
        case .stopped: return "stopped"
        case .connected: return "connected"
        case .disconnected: return "disconnected"
        case .subscribed: return "subscribed"
        case .unsubscribed: return "unsubscribed"
        case .mtu: return "mtu"
        case .counter: return "counter"
        case .notified: return "notified"
        case .message: return "message"
        case .dropped: return "dropped"
        case .sent: return "sent"
        case .error: return "error"
        case .status: return "status"
        }
    }

    var fields: [(String, JSONValue)] {
        func address(_ value: BluetoothAddress?) -> JSONValue { value.map { .string($0.description) } ?? .null }
        switch self {
        case .state(let status, let adapter):
            var fields: [(String, JSONValue)] = [("state", .string(status.name))]
            if let adapter { fields.append(("adapter", .string(adapter))) }
            if let detail = status.detail { fields.append(("detail", .string(detail))) }
            return fields
        case .registered: return []
        case .advertising(let name): return [("name", .string(name))]
        case .stopped(let reason): return [("reason", .string(reason.rawValue))]
        case .connected(let central), .disconnected(let central): return [("address", .string(central.description))]
        case .subscribed(let central, let mtu):
            return [("address", address(central)), ("mtu", mtu.map { .integer(Int64($0.value)) } ?? .null)]
        case .unsubscribed(let central): return [("address", address(central))]
        case .mtu(let central, let mtu): return [("address", .string(central.description)), ("mtu", .integer(Int64(mtu.value)))]
        case .counter(let from, let value): return [("from", address(from)), ("value", .unsigned(value))]
        case .notified(let value, let centrals): return [("value", .unsigned(value)), ("centrals", .integer(Int64(centrals)))]
        case .message(let report):
            var fields: [(String, JSONValue)] = [
                ("from", address(report.from)), ("kind", .string(report.kind.description)),
                ("length", .integer(Int64(report.length))), ("sha256", .string(report.sha256)),
            ]
            if let text = report.text { fields.append(("text", .string(text))) }
            if let path = report.savedPath { fields.append(("path", .string(path))) }
            return fields
        case .dropped(let from, let received, let total, let reason):
            return [("from", address(from)), ("received", .integer(Int64(received))), ("total", .integer(Int64(total))),
                ("reason", .string(reason))]
        case .sent(let kind, let length, let sha256, let frames, let mtu):
            return [("kind", .string(kind.description)), ("length", .integer(Int64(length))), ("sha256", .string(sha256)),
                ("frames", .integer(Int64(frames))), ("mtu", .integer(Int64(mtu.value)))]
        case .error(let message, let from):
            var fields: [(String, JSONValue)] = [("message", .string(message))]
            if let from { fields.append(("from", .string(from.description))) }
            return fields
        case .status(let status): return status.fields
        }
    }

    var humanDescription: String {
        func who(_ central: BluetoothAddress?) -> String { central.map { "central \($0)" } ?? "a central" }
        switch self {
        case .state(let status, let adapter):
            return status.humanDescription + (adapter.map { " (\($0))" } ?? "")
        case .registered: return "GATT service registered"
        case .advertising(let name): return "advertising as '\(name)'"
        case .stopped(let reason):
            switch reason {
            case .command, .quit: return "advertising stopped"
            case .poweredOff: return "advertising paused: the adapter is off (resumes when it is back on)"
            case .unavailable: return "advertising paused: bluetoothd or the adapter went away (resumes when back)"
            case .released: return "advertising stopped by bluetoothd (type start to advertise again)"
            }
        case .connected(let central): return "central \(central) connected"
        case .disconnected(let central): return "central \(central) disconnected"
        case .subscribed(let central, let mtu):
            return "\(who(central)) subscribed" + (mtu.map { " (MTU \($0))" } ?? "")
        case .unsubscribed(let central): return "\(who(central)) unsubscribed"
        case .mtu(let central, let mtu): return "central \(central): MTU \(mtu)"
        case .counter(let from, let value): return "counter \(value) from \(who(from))"
        case .notified(let value, let centrals):
            return "notified \(value) to \(centrals) central\(centrals == 1 ? "" : "s")"
        case .message(let report):
            var line = "message from \(who(report.from)): "
            if let text = report.text {
                line += "\"\(text)\""
            } else {
                line += "\(report.kind) \(report.length) bytes sha256 \(report.sha256)"
            }
            if let path = report.savedPath { line += " saved to \(path)" }
            return line
        case .dropped(let from, let received, let total, let reason):
            return "dropped partial message from \(who(from)) after \(received) of \(total) bytes: \(reason)"
        case .sent(let kind, let length, let sha256, let frames, let mtu):
            return "sent \(kind) message of \(length) bytes in \(frames) frame\(frames == 1 ? "" : "s") "
                + "(MTU \(mtu), at most \(mtu.maxValueLength) bytes each), sha256 \(sha256)"
        case .error(let message, let from):
            return "error: " + (from.map { "central \($0): " } ?? "") + message
        case .status(let status): return status.humanDescription
        }
    }
}
