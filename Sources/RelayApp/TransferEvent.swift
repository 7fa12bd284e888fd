import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol

/// A complete message as the receiver reports it.
public struct ReceivedMessageReport: Equatable, Sendable {
    public let from: PeerName
    public let id: MessageID
    public let kind: MessageKind
    public let length: Int
    /// SHA-256 of the message, in hex.
    public let sha256: String
    /// The text of a text message (invalid UTF-8 replaced), else nil.
    public let text: String?
    /// Where it was saved (`--save-dir`), or nil.
    public var saved: String?

    public init(from: PeerName, id: MessageID, message: Message, saved: String? = nil) {
        self.from = from
        self.id = id
        kind = message.kind
        length = message.bytes.count
        sha256 = SHA256.hash(message.bytes).hex
        text = message.kind == .text ? String(decoding: message.bytes, as: UTF8.self) : nil
        self.saved = saved
    }
}

/// The events of counters and messages moving between the programs: the same names, JSON
/// fields and lines on both (docs/cli.md).
public enum TransferEvent: Equatable, Sendable {
    /// A counter arrived.
    case counter(from: PeerName, Counter)
    /// The first frame of a message that needs more than one arrived.
    case receiving(from: PeerName, ReassemblyProgress)
    /// A complete message arrived.
    case message(ReceivedMessageReport)
    /// A partial message was given up.
    case dropped(from: PeerName, DroppedPartial, DropReason)
    /// A framed message was handed to bluetoothd completely.
    case sent(OutgoingMessage)
    /// The peer broke the protocol (an `error` event); `suppressedBefore` errors were not shown.
    case protocolError(from: PeerName, ReassemblyError, suppressedBefore: Int)
}

extension TransferEvent: ReportableEvent {
    public var name: String {
        switch self {
        case .counter: return "counter"
        case .receiving: return "receiving"
        case .message: return "message"
        case .dropped: return "dropped"
        case .sent: return "sent"
        case .protocolError: return "error"
        }
    }

    public var fields: [(String, JSONValue)] {
        switch self {
        case .counter(let from, let counter):
            return [("from", from.json), ("value", .unsigned(counter.value))]
        case .receiving(let from, let progress):
            return [
                ("from", from.json), ("id", .integer(Int64(progress.id.value))),
                ("kind", .string(progress.kind.description)),
                ("length", .integer(Int64(progress.total))), ("received", .integer(Int64(progress.received))),
            ]
        case .message(let report):
            var fields: [(String, JSONValue)] = [
                ("from", report.from.json), ("id", .integer(Int64(report.id.value))),
                ("kind", .string(report.kind.description)),
                ("length", .integer(Int64(report.length))), ("sha256", .string(report.sha256)),
            ]
            if let text = report.text { fields.append(("text", .string(text))) }
            fields.append(("saved", report.saved.map { .string($0) } ?? .null))
            return fields
        case .dropped(let from, let partial, let reason):
            return [
                ("from", from.json), ("id", .integer(Int64(partial.id.value))),
                ("kind", .string(partial.kind.description)),
                ("received", .integer(Int64(partial.received))), ("length", .integer(Int64(partial.total))),
                ("reason", .string(reason.description)),
            ]
        case .sent(let message):
            return [
                ("id", .integer(Int64(message.id.value))), ("kind", .string(message.kind.description)),
                ("length", .integer(Int64(message.length))), ("sha256", .string(message.sha256)),
                ("frames", .integer(Int64(message.frames))), ("mtu", .integer(Int64(message.mtu.value))),
            ]
        case .protocolError(let from, _, let suppressed):
            var fields: [(String, JSONValue)] = [("message", .string(errorText)), ("from", from.json)]
            if suppressed > 0 { fields.append(("suppressed", .integer(Int64(suppressed)))) }
            return fields
        }
    }

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
        case .receiving(let from, let progress):
            return "receiving message \(progress.id) from \(from): \(progress.kind), \(progress.total) bytes…"
        case .message(let report):
            var line = "message \(report.id) from \(report.from): "
            if let text = report.text {
                line += "\"\(text)\""
            } else {
                line += "\(report.kind), \(report.length) bytes, sha256 \(report.sha256)"
            }
            if let saved = report.saved { line += " (saved to \(saved))" }
            return line
        case .dropped(let from, let partial, let reason):
            return
                "dropped message \(partial.id) from \(from) after \(partial.received) of \(partial.total) bytes: \(reason)"
        case .sent(let message):
            let frames = message.frames == 1 ? "1 frame" : "\(message.frames) frames"
            return "sent \(message.kind) message \(message.id) of \(message.length) bytes in \(frames) "
                + "(MTU \(message.mtu), values up to \(message.mtu.maxValueLength) bytes), sha256 \(message.sha256)"
        case .protocolError:
            return "error: " + errorText
        }
    }
}

extension TransferEvent {
    /// The event an inbound pipeline's output becomes, from `from`; nil for a complete message
    /// (which is reported once saved, see `MessageSave`).
    public init?(_ event: InboundEvent, from: PeerName) {
        switch event {
        case .counter(let counter): self = .counter(from: from, counter)
        case .receiving(let progress): self = .receiving(from: from, progress)
        case .message: return nil
        case .protocolError(let error, let suppressed):
            self = .protocolError(from: from, error, suppressedBefore: suppressed)
        case .dropped(let partial, let reason): self = .dropped(from: from, partial, reason)
        }
    }
}
