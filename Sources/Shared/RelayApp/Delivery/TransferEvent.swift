import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// Which service a message came through.
public enum MessageVia: String, Sendable, Equatable {
    /// The relay service (framed, protocol 1 or 2).
    case relay
    /// A line of text on the Nordic UART Service (a phone UART app).
    case nus
}

/// A complete message as the receiver reports it.
public struct ReceivedMessageReport: Equatable, Sendable {
    public let from: PeerName
    /// The sender's number for it (version 1: the frame's message id; version 2: the transfer id).
    public let id: Int
    public let kind: MessageKind
    public let length: Int
    /// SHA-256 of the message, in hex.
    public let sha256: String
    /// The text of a text message (invalid UTF-8 replaced), else nil.
    public let text: String?
    /// The file name it came with (protocol 2 `send-file`) as the sender wrote it, invalid UTF-8
    /// replaced (shown only: the name saved under is `ReceivedFileName`'s), or nil.
    public let name: String?
    /// Where it was saved (`--save-dir`), or nil.
    public var saved: String?
    /// The service it came through.
    public var via: MessageVia = .relay

    public init(from: PeerName, id: Int, message: Message, saved: String? = nil, via: MessageVia = .relay) {
        self.via = via
        self.from = from
        self.id = id
        kind = message.kind
        length = message.bytes.count
        sha256 = SHA256.hash(message.bytes).hex
        text = message.kind == .text ? String(decoding: message.bytes, as: UTF8.self) : nil
        name = message.name.isEmpty ? nil : String(decoding: message.name, as: UTF8.self)
        self.saved = saved
    }

    /// A file that was written as it came (its bytes are not held): `header` says what it is.
    public init(from: PeerName, id: Int, header: MessageHeader, sha256: SHA256.Digest, saved: String? = nil) {
        self.from = from
        self.id = id
        kind = header.kind
        length = Int(header.length)
        self.sha256 = sha256.hex
        text = nil
        name = header.name.isEmpty ? nil : String(decoding: header.name, as: UTF8.self)
        self.saved = saved
    }
}

/// How far an incoming message has come (`receiving`) or where it stopped (`dropped`).
public struct PartialMessageReport: Equatable, Sendable {
    /// The sender's number for it.
    public let id: Int
    /// Its kind, once its header came.
    public let kind: MessageKind?
    /// Message bytes held in order.
    public let received: Int
    /// Its length, once its header came.
    public let total: Int?

    public init(id: Int, kind: MessageKind?, received: Int, total: Int?) {
        self.id = id
        self.kind = kind
        self.received = received
        self.total = total
    }

    /// A version-1 partial message.
    public init(_ partial: DroppedPartial) {
        self.init(id: Int(partial.id.value), kind: partial.kind, received: partial.received, total: partial.total)
    }

    /// A version-1 message in progress.
    public init(_ progress: ReassemblyProgress) {
        self.init(id: Int(progress.id.value), kind: progress.kind, received: progress.received, total: progress.total)
    }
}

/// Which way a message moves (`progress`).
public enum TransferDirection: String, Equatable, Sendable {
    case incoming = "in"
    case outgoing = "out"
}

/// The events of counters and messages moving between the programs: the same names, JSON
/// fields and lines on both (docs/cli.md).
public enum TransferEvent: Equatable, Sendable {
    /// A counter arrived.
    case counter(from: PeerName, Counter)
    /// A message that needs more than one frame started arriving.
    case receiving(from: PeerName, PartialMessageReport)
    /// A complete message arrived.
    case message(ReceivedMessageReport)
    /// A partial message was given up.
    case dropped(from: PeerName, PartialMessageReport, DropReason)
    /// A message was handed to bluetoothd completely (every frame once).
    case sent(OutgoingMessage)
    /// Text was written to a UART device's RX (`relay-central --nus`): `length` bytes (the line
    /// ending included) in `values` values, at `mtu`. Nothing confirms it beyond the link layer.
    case sentText(id: Int, length: Int, values: Int, mtu: MTU)
    /// The peer holds the whole message, its CRC-32C checked; `seconds` since it was queued.
    case delivered(SentMessageSummary, to: PeerName, seconds: Double)
    /// Sent to a peer that cannot acknowledge (version 1, the original apps): no confirmation comes.
    case unconfirmed(SentMessageSummary, to: PeerName)
    /// Sending to `to` goes on after a link drop from `offset` of `total` bytes.
    case resumed(id: Int, offset: Int, total: Int, to: PeerName)
    /// How far a message has come, at most 4 a second per message: bytes of `total`, `rate` in
    /// bytes a second, the file name it carries (nil for text and binary messages). On a
    /// terminal it is a live line above the prompt; without one (and without `--json`) it is
    /// not printed.
    /// `peer` is the sender of an incoming message (nil for outgoing ones, which go to every receiver).
    case progress(
        id: Int, direction: TransferDirection, bytes: Int, total: Int, rate: Double, name: String?,
        peer: PeerName? = nil)
    /// The message will not be delivered to `to`.
    case failed(SentMessageSummary, to: PeerName, DeliveryFailure)
    /// The peer broke the protocol (an `error` event); `suppressedBefore` errors were not shown.
    case protocolError(from: PeerName, ProtocolViolation, suppressedBefore: Int)
}

extension TransferEvent: ReportableEvent {
    public var name: String {
        switch self {
        case .counter: return "counter"
        case .receiving: return "receiving"
        case .message: return "message"
        case .dropped: return "dropped"
        case .sent, .sentText: return "sent"
        case .delivered: return "delivered"
        case .unconfirmed: return "unconfirmed"
        case .resumed: return "resumed"
        case .progress: return "progress"
        case .failed: return "failed"
        case .protocolError: return "error"
        }
    }

    /// Every event name this type reports (for `wait`).
    public static let names = [
        "counter", "receiving", "message", "dropped", "sent", "delivered", "unconfirmed", "resumed", "progress",
        "failed",
    ]

    public var fields: [(String, JSONValue)] {
        switch self {
        case .counter(let from, let counter):
            return [("from", from.json), ("value", .unsigned(counter.value))]
        case .receiving(let from, let partial):
            return [
                ("from", from.json), ("id", .integer(Int64(partial.id))), ("kind", Self.kind(partial.kind)),
                ("length", Self.optional(partial.total)), ("received", .integer(Int64(partial.received))),
            ]
        case .message(let report):
            var fields: [(String, JSONValue)] = [
                ("from", report.from.json), ("id", .integer(Int64(report.id))),
                ("kind", .string(report.kind.description)),
                ("length", .integer(Int64(report.length))), ("sha256", .string(report.sha256)),
            ]
            if let text = report.text { fields.append(("text", .string(text))) }
            fields.append(("name", report.name.map { .string($0) } ?? .null))
            fields.append(("saved", report.saved.map { .string($0) } ?? .null))
            fields.append(("via", .string(report.via.rawValue)))
            return fields
        case .dropped(let from, let partial, let reason):
            return [
                ("from", from.json), ("id", .integer(Int64(partial.id))), ("kind", Self.kind(partial.kind)),
                ("received", .integer(Int64(partial.received))), ("length", Self.optional(partial.total)),
                ("reason", .string(reason.description)),
            ]
        case .sentText(let id, let length, let values, let mtu):
            return [
                ("id", .integer(Int64(id))), ("kind", .string(MessageKind.text.description)),
                ("length", .integer(Int64(length))), ("values", .integer(Int64(values))),
                ("mtu", .integer(Int64(mtu.value))), ("via", .string(MessageVia.nus.rawValue)),
            ]
        case .sent(let message):
            return [
                ("id", .integer(Int64(message.number))), ("kind", .string(message.kind.description)),
                ("length", .integer(Int64(message.length))), ("sha256", .string(message.sha256)),
                ("frames", .integer(Int64(message.frames))), ("mtu", .integer(Int64(message.mtu.value))),
                ("protocol", .integer(Int64(message.protocolVersion))),
            ]
        case .delivered(let message, let to, let seconds):
            return Self.summary(message) + [("to", to.json), ("seconds", .number(Self.rounded(seconds)))]
        case .unconfirmed(let message, let to):
            return Self.summary(message) + [("to", to.json)]
        case .resumed(let id, let offset, let total, let to):
            return [
                ("id", .integer(Int64(id))), ("offset", .integer(Int64(offset))), ("total", .integer(Int64(total))),
                ("to", to.json),
            ]
        case .progress(let id, let direction, let bytes, let total, let rate, let name, let peer):
            return [
                ("id", .integer(Int64(id))), ("direction", .string(direction.rawValue)),
                ("bytes", .integer(Int64(bytes))), ("total", .integer(Int64(total))),
                ("rate", .integer(Int64(rate.rounded()))), ("name", name.map { .string($0) } ?? .null),
                ("from", peer?.json ?? .null),
            ]
        case .failed(let message, let to, let failure):
            return [("id", .integer(Int64(message.id))), ("reason", .string(failure.description)), ("to", to.json)]
                + [("length", .integer(Int64(message.length))), ("sha256", .string(message.sha256))]
        case .protocolError(let from, _, let suppressed):
            var fields: [(String, JSONValue)] = [("message", .string(errorText)), ("from", from.json)]
            if suppressed > 0 { fields.append(("suppressed", .integer(Int64(suppressed)))) }
            return fields
        }
    }

    private static func summary(_ message: SentMessageSummary) -> [(String, JSONValue)] {
        [
            ("id", .integer(Int64(message.id))), ("length", .integer(Int64(message.length))),
            ("sha256", .string(message.sha256)),
        ]
    }

    private static func kind(_ kind: MessageKind?) -> JSONValue { kind.map { .string($0.description) } ?? .null }
    private static func optional(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// The `error` line's message, for a protocol error.
    private var errorText: String {
        guard case .protocolError(let from, let error, let suppressed) = self else { return "" }
        let more = suppressed > 0 ? " (\(suppressed) more protocol errors were not shown)" : ""
        return "protocol error from \(from): \(error)\(more)"
    }

    public var humanDescription: String {
        switch self {
        case .counter(let from, let counter):
            return "counter \(counter) from \(from)"
        case .receiving(let from, let partial):
            let size = partial.total.map { "\($0) bytes" } ?? "size not known yet"
            return
                "receiving message \(partial.id) from \(from): \(partial.kind.map { "\($0)" } ?? "message"), \(size)…"
        case .message(let report):
            var line = "message \(report.id) from \(report.from)\(report.via == .nus ? " (UART)" : ""): "
            if let text = report.text {
                line += "\"\(Console.oneLine(text))\""
            } else if let name = report.name {
                line += "file \(ValueParser.quoted(name)), \(report.length) bytes, sha256 \(report.sha256)"
            } else {
                line += "\(report.kind), \(report.length) bytes, sha256 \(report.sha256)"
            }
            if let saved = report.saved { line += " (saved to \(saved))" }
            return line
        case .dropped(let from, let partial, let reason):
            let of = partial.total.map { " of \($0)" } ?? ""
            return "dropped message \(partial.id) from \(from) after \(partial.received)\(of) bytes: \(reason)"
        case .sentText(let id, let length, let values, let mtu):
            return "sent text message \(id) of \(length) bytes in \(values == 1 ? "1 value" : "\(values) values") "
                + "(MTU \(mtu)) to the UART device"
        case .sent(let message):
            let frames = message.frames == 1 ? "1 frame" : "\(message.frames) frames"
            let confirm = message.protocolVersion >= 2 ? "; delivery is confirmed when it comes" : ""
            return "sent \(message.kind) message \(message.number) of \(message.length) bytes in \(frames) "
                + "(MTU \(message.mtu)), sha256 \(message.sha256)\(confirm)"
        case .delivered(let message, let to, let seconds):
            return "delivered message \(message.id) (\(message.length) bytes) to \(to) in \(Self.duration(seconds))"
        case .unconfirmed(let message, let to):
            return "sent message \(message.id) (\(message.length) bytes) to \(to), unconfirmed: it cannot acknowledge"
        case .resumed(let id, let offset, let total, let to):
            return "resuming message \(id) to \(to) from byte \(offset) of \(total)"
        case .progress(let id, let direction, let bytes, let total, let rate, let name, _):
            return ProgressLine(
                id: id, direction: direction, name: name, bytes: bytes, total: total, rate: rate
            ).text
        case .failed(let message, let to, let failure):
            return "message \(message.id) (\(message.length) bytes) to \(to) failed: \(failure)"
        case .protocolError:
            return "error: " + errorText
        }
    }

    private static func duration(_ seconds: Double) -> String {
        seconds < 10 ? "\((seconds * 100).rounded() / 100) s" : "\(Int(seconds.rounded())) s"
    }
}

extension TransferEvent {
    /// A transfer's progress is one live line on a terminal, ended by its last event.
    public var liveLine: LiveLine? {
        switch self {
        case .progress(let id, let direction, _, _, _, _, let peer):
            return .update(key: Self.liveKey(id, direction, peer), text: humanDescription)
        case .delivered(let message, _, _), .failed(let message, _, _):
            return .end(key: Self.liveKey(message.id, .outgoing, nil))
        case .message(let report):
            return report.via == .nus ? nil : .end(key: Self.liveKey(report.id, .incoming, report.from))
        case .dropped(let from, let partial, _): return .end(key: Self.liveKey(partial.id, .incoming, from))
        default: return nil
        }
    }

    /// One live line per message: outgoing by number, incoming by sender and the sender's number.
    private static func liveKey(_ id: Int, _ direction: TransferDirection, _ peer: PeerName?) -> String {
        direction == .outgoing ? "out-\(id)" : "in-\(peer?.address?.description ?? "?")-\(id)"
    }
}

extension TransferEvent {
    /// The event an inbound pipeline's output becomes, from `from`; nil for a complete message
    /// (which is reported once saved, see `MessageArrival`).
    public init?(_ event: InboundEvent, from: PeerName) {
        switch event {
        case .counter(let counter): self = .counter(from: from, counter)
        case .receiving(let progress): self = .receiving(from: from, PartialMessageReport(progress))
        case .message: return nil
        case .protocolError(let error, let suppressed):
            self = .protocolError(from: from, .frame(error), suppressedBefore: suppressed)
        case .dropped(let partial, let reason): self = .dropped(from: from, PartialMessageReport(partial), reason)
        }
    }
}
