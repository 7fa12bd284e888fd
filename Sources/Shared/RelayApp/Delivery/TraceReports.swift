import RelayCLI
import RelayProtocol

/// One value that went over the air (`--trace`): which way, on which characteristic, with whom,
/// its bytes and what they mean.
public struct TraceEvent: Equatable, Sendable, ReportableEvent {
    /// Seconds since the first traced value.
    public let elapsed: Double
    public let direction: TransferDirection
    public let characteristic: TracedCharacteristic
    /// The other side (nil when bluetoothd did not say).
    public let peer: PeerName?
    public let bytes: [UInt8]
    public let meaning: String

    /// Bytes shown in hex; the rest are counted.
    public static let shownBytes = 32

    public init(
        elapsed: Double, direction: TransferDirection, characteristic: TracedCharacteristic, peer: PeerName?,
        bytes: [UInt8], meaning: String
    ) {
        self.elapsed = elapsed
        self.direction = direction
        self.characteristic = characteristic
        self.peer = peer
        self.bytes = bytes
        self.meaning = meaning
    }

    public var name: String { "trace" }

    public var fields: [(String, JSONValue)] {
        [
            ("direction", .string(direction.rawValue)), ("characteristic", .string(characteristic.rawValue)),
            ("peer", peer?.json ?? .null), ("length", .integer(Int64(bytes.count))),
            ("hex", .string(Hex.string(bytes))),
            ("meaning", .string(meaning)),
        ]
    }

    /// `+1.234 s out write 19 bytes b1 03 01 … 6f: frame v1 FIRST|LAST id 1 seq 0, text, …`
    public var humanDescription: String {
        var shown = bytes.prefix(Self.shownBytes).map { Hex.string([$0]) }.joined(separator: " ")
        if bytes.count > Self.shownBytes { shown += " (+\(bytes.count - Self.shownBytes) bytes)" }
        let milliseconds = Int((elapsed * 1000).rounded())
        let time =
            "+\(milliseconds / 1000).\(String(repeating: "0", count: 3 - String(milliseconds % 1000).count))"
            + "\(milliseconds % 1000) s"
        let who = peer.map { direction == .incoming ? " from \($0)" : " to \($0)" } ?? ""
        return
            "trace \(time) \(direction.rawValue) \(characteristic.rawValue)\(who) \(bytes.count) bytes \(shown): \(meaning)"
    }
}

/// The lines `--trace` left out in one second (human mode's limit).
public struct TraceSummary: Equatable, Sendable, ReportableEvent {
    public let leftOut: Int

    public init(leftOut: Int) {
        self.leftOut = leftOut
    }
    public var name: String { "trace-summary" }
    public var fields: [(String, JSONValue)] { [("leftOut", .integer(Int64(leftOut)))] }
    public var humanDescription: String {
        "trace: \(leftOut) more value\(leftOut == 1 ? "" : "s") not shown (at most \(TraceReports.humanLimit) lines a second)"
    }
}

/// What `--trace` prints: a value, or how many were left out.
public enum TraceOutput: Equatable, Sendable, ReportableEvent {
    case value(TraceEvent)
    case summary(TraceSummary)

    public var name: String {
        switch self {
        case .value(let event): event.name
        case .summary(let summary): summary.name
        }
    }

    public var fields: [(String, JSONValue)] {
        switch self {
        case .value(let event): event.fields
        case .summary(let summary): summary.fields
        }
    }

    public var humanDescription: String {
        switch self {
        case .value(let event): event.humanDescription
        case .summary(let summary): summary.humanDescription
        }
    }
}

/// `--trace` for both programs: every value written, notified or received becomes a `trace`
/// event. In human mode at most `humanLimit` a second are shown, then one summary line of what
/// was left out (at the end of that second: `flushDeadline`); with `--json` every one is.
/// A plain value with time as an input.
public struct TraceReports: Equatable, Sendable {
    /// Lines a second on a terminal.
    public static let humanLimit = 20

    /// Lines a second, nil for every one (`--json`).
    public let limit: Int?
    private var origin: Double?
    private var windowStart = -Double.infinity
    private var shownInWindow = 0
    private var leftOut = 0

    /// `limit` lines a second (nil: no limit).
    public init(limit: Int?) {
        self.limit = limit
    }

    /// When the summary of the values left out this second is due; nil when none were.
    public var flushDeadline: Double? { leftOut > 0 ? windowStart + 1 : nil }

    /// The events for one value (the summary of a past second first, if one is due).
    public mutating func trace(
        _ bytes: [UInt8], _ direction: TransferDirection, on characteristic: TracedCharacteristic, peer: PeerName?,
        at now: Double
    ) -> [TraceOutput] {
        let start = origin ?? now
        origin = start
        var events = flush(at: now)
        if let limit {
            if now >= windowStart + 1 {
                windowStart = now
                shownInWindow = 0
            }
            guard shownInWindow < limit else {
                leftOut += 1
                return events
            }
            shownInWindow += 1
        }
        events.append(
            .value(
                TraceEvent(
                    elapsed: now - start, direction: direction, characteristic: characteristic, peer: peer,
                    bytes: bytes, meaning: ValueMeaning.describe(bytes, on: characteristic))))
        return events
    }

    /// The summary line, once its second is over.
    public mutating func flush(at now: Double) -> [TraceOutput] {
        guard let due = flushDeadline, now >= due else { return [] }
        let summary = TraceSummary(leftOut: leftOut)
        leftOut = 0
        return [.summary(summary)]
    }
}
