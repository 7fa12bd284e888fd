import RelayApp
import RelayCLI
import RelayProtocol

/// What `status` shows.
struct CentralStatus: Equatable, Sendable {
    var adapter: AdapterReport
    var link: String
    var peer: Peer?
    var mtu: MTU?
    var path: WritePath?
    /// What the ready link is to: a relay peripheral, or a UART device (nil: not ready).
    var service: MessageVia?
    var scanning: Bool
    var candidates: Int
    var nextCounter: Counter
    var lastReceived: Counter?
    var messagesReceived: Int
    var messagesSent: Int
    var pendingSends: Int
    /// The protocol version of the ready link (nil: not ready).
    var protocolVersion: Int?
    /// How protocol 2's messages travel (nil without protocol 2).
    var lane: MessageLane? = nil
    var delivery = DeliveryStatus()

    var fields: [(String, JSONValue)] {
        adapter.fields + [
            ("link", .string(link)),
            ("peer", peer.map { .string($0.address.description) } ?? .null),
            ("mtu", mtu.map { .integer(Int64($0.value)) } ?? .null),
            ("path", path.map { .string($0.rawValue) } ?? .null),
            ("service", service.map { .string($0.rawValue) } ?? .null),
            ("scanning", .bool(scanning)), ("candidates", .integer(Int64(candidates))),
            ("nextCounter", .unsigned(nextCounter.value)),
            ("lastReceived", lastReceived.map { .unsigned($0.value) } ?? .null),
            ("messagesReceived", .integer(Int64(messagesReceived))),
            ("messagesSent", .integer(Int64(messagesSent))),
            ("pendingSends", .integer(Int64(pendingSends))),
            ("protocol", protocolVersion.map { .integer(Int64($0)) } ?? .null),
            ("lane", lane.map { .string($0.rawValue) } ?? .null), ("delivery", delivery.json),
        ]
    }

    var humanDescription: String {
        var lines = [
            "adapter:   \(adapter.summary)",
            "link:      \(link)\(peer.map { " — \($0)" } ?? "")",
        ]
        if let mtu {
            lines.append(
                "MTU:       \(mtu) (values up to \(mtu.maxValueLength(.write)) bytes, via \(path?.rawValue ?? "?"))")
        }
        if service == .nus { lines.append("service:   UART (Nordic UART Service): lines of text") }
        if let protocolVersion {
            lines.append(
                "protocol:  \(protocolVersion)"
                    + (protocolVersion >= 2 ? " (delivery confirmed)" : " (frames only: delivery unconfirmed)"))
        }
        if let lane { lines.append("lane:      \(lane == .l2cap ? "L2CAP channel" : "GATT (session characteristic)")") }
        lines.append("scanning:  \(scanning ? "yes" : "no"), \(candidates) candidate\(candidates == 1 ? "" : "s")")
        lines.append("counter:   next write \(nextCounter), last received \(lastReceived.map(\.description) ?? "none")")
        lines.append("messages:  \(messagesReceived) received, \(messagesSent) sent, \(pendingSends) pending")
        lines.append("delivery:  \(delivery.line)")
        return lines.joined(separator: "\n")
    }
}
