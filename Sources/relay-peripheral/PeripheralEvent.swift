import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// Why advertising stopped.
enum AdvertisingStopReason: String, Sendable {
    case command = "stop"
    case poweredOff = "powered-off"
    case unavailable = "not-available"
    case released = "released"
    case quit = "quit"
}

/// Everything relay-peripheral reports: one human line or one JSON object each, and
/// the names `wait EVENT` waits for.
enum PeripheralEvent: Equatable, Sendable {
    /// The adapter's state changed (powered on/off, not available, not permitted).
    case state(AdapterState, adapter: AdapterInfo?)
    /// The GATT application (service and both characteristics) is registered with bluetoothd.
    case registered
    /// The advertisement is registered: centrals can find `name`.
    case advertising(name: String)
    /// Advertising stopped.
    case stopped(AdvertisingStopReason)
    /// The adapter refused to advertise while `centrals` are connected (event `stopped`, reason
    /// `connected`): no one else can join until one leaves.
    case advertisingHeld(centrals: Int)
    case connected(BluetoothAddress)
    case disconnected(BluetoothAddress)
    /// A central subscribed (address when BlueZ tells it): to the notify characteristic
    /// (`protocolVersion` 1), or to the session characteristic with its hello (2).
    /// `lane`: how protocol 2's messages travel to it (nil with protocol 1).
    case subscribed(BluetoothAddress?, mtu: MTU?, protocolVersion: Int = 1, lane: MessageLane? = nil)
    case unsubscribed(BluetoothAddress?)
    /// A central's MTU became known or changed.
    case mtu(BluetoothAddress, MTU)
    /// A counter was notified to `centrals` subscribed centrals.
    case notified(value: UInt32, centrals: Int)
    /// Counters and messages from centrals, and messages sent (shared with relay-central).
    case transfer(TransferEvent)
    /// `--secure`: a passkey to show, a bond made, an attempt failed (shared with relay-central).
    case pairing(PairingEvent)
    /// `--trace`: a value that went over the air, or how many were left out.
    case trace(TraceOutput)
    /// Something failed; `from` names the central when it is about one.
    case error(PeripheralProblem, from: BluetoothAddress?)
    /// The answer to `status`.
    case status(PeripheralStatus)
    /// The L2CAP lane: listening, a channel open, closed or refused.
    case lane(LaneEvent)
    /// At start-up: where the browser page is (`BrowserPage`), for browsers to join.
    case page(path: String)

    /// Every event name, for `wait` and completion.
    static let names =
        [
            "state", "registered", "advertising", "stopped", "connected", "disconnected", "subscribed", "unsubscribed",
            "mtu", "notified", "error", "status", LaneEvent.name, "page",
        ] + TransferEvent.names + ["trace", "trace-summary"] + PairingEvent.peripheralNames
}

extension PeripheralEvent: ProgramEvent {
    static func saveFailed(_ problem: String) -> PeripheralEvent { .error(.saveFailed(problem), from: nil) }

    var liveLine: LiveLine? {
        guard case .transfer(let event) = self else { return nil }
        return event.liveLine
    }

    var name: String {
        switch self {
        case .state: return "state"
        case .registered: return "registered"
        case .advertising: return "advertising"
        case .stopped, .advertisingHeld: return "stopped"
        case .connected: return "connected"
        case .disconnected: return "disconnected"
        case .subscribed: return "subscribed"
        case .unsubscribed: return "unsubscribed"
        case .mtu: return "mtu"
        case .notified: return "notified"
        case .transfer(let event): return event.name
        case .trace(let trace): return trace.name
        case .pairing(let event): return event.name
        case .error: return "error"
        case .status: return "status"
        case .lane: return LaneEvent.name
        case .page: return "page"
        }
    }

    var fields: [(String, JSONValue)] {
        func address(_ value: BluetoothAddress?) -> JSONValue { value.map { .string($0.description) } ?? .null }
        switch self {
        case .state(let state, let adapter): return state.eventFields(adapter: adapter)
        case .registered: return []
        case .advertising(let name): return [("name", .string(name))]
        case .stopped(let reason): return [("reason", .string(reason.rawValue))]
        case .advertisingHeld(let count):
            return [("reason", .string("connected")), ("centrals", .integer(Int64(count)))]
        case .connected(let central), .disconnected(let central): return [("address", .string(central.description))]
        case .subscribed(let central, let mtu, let protocolVersion, let lane):
            return [
                ("address", address(central)), ("mtu", mtu.map { .integer(Int64($0.value)) } ?? .null),
                ("protocol", .integer(Int64(protocolVersion))), ("lane", lane.map { .string($0.rawValue) } ?? .null),
            ]
        case .unsubscribed(let central): return [("address", address(central))]
        case .mtu(let central, let mtu):
            return [("address", .string(central.description)), ("mtu", .integer(Int64(mtu.value)))]
        case .notified(let value, let centrals):
            return [("value", .unsigned(value)), ("centrals", .integer(Int64(centrals)))]
        case .transfer(let event): return event.fields
        case .trace(let trace): return trace.fields
        case .pairing(let event): return event.fields
        case .error(let problem, let from):
            var fields: [(String, JSONValue)] = [("message", .string(problem.description))]
            if let from { fields.append(("from", .string(from.description))) }
            return fields
        case .status(let status): return status.fields
        case .lane(let event): return event.fields
        case .page(let path): return [("path", .string(path))]
        }
    }

    var humanDescription: String {
        func who(_ central: BluetoothAddress?) -> String { PeerName(.central, central).description }
        switch self {
        case .state(let state, let adapter): return state.humanDescription(adapter: adapter)
        case .registered: return "GATT service registered"
        case .advertising(let name): return "advertising as '\(name)'"
        case .stopped(let reason):
            switch reason {
            case .command, .quit: return "advertising stopped"
            case .poweredOff: return "advertising paused: the adapter is off (resumes when it is back on)"
            case .unavailable: return "advertising paused: bluetoothd or the adapter went away (resumes when back)"
            case .released: return "advertising stopped by bluetoothd (type start to advertise again)"
            }
        case .advertisingHeld(let count):
            return
                "advertising paused: the adapter does not advertise while \(count) central\(count == 1 ? " is" : "s are") "
                + "connected (its controller cannot do both), so no one else can join; it advertises again when one leaves"
        case .connected(let central): return "\(who(central)) connected"
        case .disconnected(let central): return "\(who(central)) disconnected"
        case .subscribed(let central, let mtu, let protocolVersion, let lane):
            return "\(who(central)) subscribed" + (mtu.map { " (MTU \($0))" } ?? "")
                + (protocolVersion >= 2 ? ", protocol 2: delivery confirmed" : "")
                + (lane == .l2cap ? ", messages on the L2CAP lane" : "")
        case .unsubscribed(let central): return "\(who(central)) unsubscribed"
        case .mtu(let central, let mtu): return "\(who(central)): MTU \(mtu)"
        case .notified(let value, let centrals):
            return "notified \(value) to \(centrals) central\(centrals == 1 ? "" : "s")"
        case .transfer(let event): return event.humanDescription
        case .trace(let trace): return trace.humanDescription
        case .pairing(let event): return event.humanDescription
        case .error(let problem, let from): return "error: " + (from.map { "\(who($0)): " } ?? "") + problem.description
        case .status(let status): return status.humanDescription
        case .lane(let event): return event.humanDescription
        case .page(let path): return "browsers join as centrals through the page \(path) (Chrome, Edge)"
        }
    }
}
