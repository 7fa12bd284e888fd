import RelayCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The options both programs take, parsed once: `--adapter`, `--json`, `--trace`, `--max-message`, `--max-file`,
/// `--save-dir`, `--notify-path` (whose default and meaning differ by program), and delivery
/// (`--protocol`, `--window`, `--flight`, `--resume-timeout`, `--delivery-timeout`), and `--nus-eol`.
public struct CommonOptions: Equatable, Sendable {
    /// Default and upper bound of `--max-message`.
    public static let defaultMaxMessage = 1 << 20
    public static let maxMessageLimit = 1 << 30
    /// Default of `--max-file` (its upper bound is `maxMessageLimit`).
    public static let defaultMaxFile = 100 << 20

    public var adapter: AdapterChoice?
    public var json = false
    /// The largest message accepted from the peer.
    public var maxMessage = CommonOptions.defaultMaxMessage
    /// The largest file (`send-file` of protocol 2, which carries a name) accepted from the peer.
    public var maxFile = CommonOptions.defaultMaxFile
    /// Where received messages are saved (checked to be a directory).
    public var saveDirectory: String?
    public var notifyPath: NotifyPath
    /// The highest protocol version spoken: 2 (delivery confirmed), or 1 (as relay 0.2).
    public var protocolVersion = 2
    /// Version-2 window: stream bytes unacknowledged per peer.
    public var window = CommonOptions.defaultWindow
    /// Version-2 flight: what is in flight follows this many seconds of the measured delivery rate.
    public var flight = 0.5
    /// How long a partial transfer waits for its peer's link to come back (seconds).
    public var resumeTimeout = 60.0
    /// How long a transfer may go without progress before it fails (seconds).
    public var deliveryTimeout = 120.0
    /// `--trace`: show every value written, notified or received.
    public var trace = false
    /// `--nus-eol`: the line ending of text sent to a UART (Nordic UART Service) peer.
    public var uartEnding = UARTLineEnding.lf
    /// `--check`: check that this machine can play the program's part, then exit.
    public var check = false
    /// `--lane`: whether messages may travel on an L2CAP channel beside GATT.
    public var lane = LaneChoice.auto

    /// `--trace`'s reports (at most 20 lines a second unless `--json`), or nil without it.
    public var traceReports: TraceReports? {
        trace ? TraceReports(limit: json ? nil : TraceReports.humanLimit) : nil
    }

    /// The default window (docs/performance.md says why).
    public static let defaultWindow = 64 << 10
    /// Bounds of `--window`.
    public static let windowRange = 512...(16 << 20)

    /// The defaults, with the program's notification path.
    public init(notifyPath: NotifyPath) {
        self.notifyPath = notifyPath
    }

    /// The option specs, in `--help` order; `peer` names the other side in the help lines
    /// (`a central`, `the peripheral`), `notifyPathHelp` explains `--notify-path` for this program.
    public static func specs(peer: String, notifyPathDefault: NotifyPath, notifyPathHelp: String) -> [OptionSpec] {
        let paths = [notifyPathDefault] + NotifyPath.allCases.filter { $0 != notifyPathDefault }
        return [
            .value("adapter", "hciN|ADDRESS", help: "Use this adapter (default: the first one bluetoothd offers)."),
            .flag(
                "check",
                help: "Check that this machine can play this program's part (bus, bluetoothd, adapter, rfkill, "
                    + "power, LE, and what the role registers or starts), one line per check with its fix, "
                    + "then exit: 0 if it can, 1 if not."),
            .flag("json", help: "Print every event as one JSON object per line."),
            .flag(
                "trace",
                help: "Show every value written, notified or received: its bytes and what they mean "
                    + "(at most 20 lines a second unless --json)."),
            .value(
                "max-message", "BYTES", kind: .byteCount(1...maxMessageLimit),
                help: "Largest message accepted from \(peer) (default 1048576; K and M suffixes)."),
            .value(
                "max-file", "BYTES", kind: .byteCount(1...maxMessageLimit),
                help: "Largest file (send-file, protocol 2) accepted from \(peer) (default 100M; K and M suffixes)."),
            .value("save-dir", "DIR", help: "Save every received message as a file in DIR."),
            .value(
                "notify-path", paths.map(\.rawValue).joined(separator: "|"), kind: .choice(paths.map(\.rawValue)),
                help: notifyPathHelp),
            .value(
                "protocol", "2|1", kind: .choice(["2", "1"]),
                help: "2 (default): delivery confirmed end to end with relays that speak it; 1: frames only, "
                    + "as relay 0.2 (never offers or uses the session characteristic)."),
            .value(
                "window", "BYTES", kind: .byteCount(windowRange),
                help: "Bytes in flight per peer before acknowledgements must come (default 64K; K and M suffixes)."),
            .value(
                "flight", "S", kind: .seconds(maximum: 3600),
                help: "Keep what is in flight to this many seconds of the measured delivery rate, within the "
                    + "window (default 0.5)."),
            .value(
                "resume-timeout", "S", kind: .seconds(maximum: 86_400),
                help: "Keep a cut transfer this long for its peer to come back (default 60)."),
            .value(
                "delivery-timeout", "S", kind: .seconds(maximum: 86_400),
                help: "A message that makes no progress this long fails (default 120)."),
            .value(
                "lane", "gatt|l2cap|auto", kind: .choice(LaneChoice.allCases.map(\.rawValue)),
                help: "auto (default): protocol 2's messages go on an LE L2CAP channel when both sides offer "
                    + "it, else on the session characteristic; l2cap: the same, and a line says when they "
                    + "cannot; gatt: always on the session characteristic (no channel, no listener)."),
            .value(
                "nus-eol", "lf|crlf|none", kind: .choice(UARTLineEnding.allCases.map(\.rawValue)),
                help: "The line ending of text sent to UART (Nordic UART Service) peers (default lf)."),
        ]
    }

    /// The common options of a parse; `--save-dir` must name a directory, and `--lane l2cap`
    /// needs protocol 2.
    public init(parsed: ParsedOptions, notifyPathDefault: NotifyPath) throws(UsageError) {
        notifyPath = parsed.choice("notify-path", as: NotifyPath.self) ?? notifyPathDefault
        if let text = parsed.text("adapter") { adapter = try AdapterChoice(parsing: text) }
        json = parsed.flag("json")
        check = parsed.flag("check")
        trace = parsed.flag("trace")
        if let ending = parsed.choice("nus-eol", as: UARTLineEnding.self) { uartEnding = ending }
        if parsed.text("protocol") == "1" { protocolVersion = 1 }
        if let lane = parsed.choice("lane", as: LaneChoice.self) { self.lane = lane }
        if protocolVersion == 1 && lane == .l2cap {
            throw UsageError("--lane l2cap carries protocol 2's frames: not with --protocol 1 (which stays on GATT)")
        }
        if let bytes = parsed.byteCount("window") { window = bytes }
        if let seconds = parsed.seconds("flight") { flight = seconds }
        if let seconds = parsed.seconds("resume-timeout") { resumeTimeout = seconds }
        if let seconds = parsed.seconds("delivery-timeout") { deliveryTimeout = seconds }
        if let bytes = parsed.byteCount("max-message") { maxMessage = bytes }
        if let bytes = parsed.byteCount("max-file") { maxFile = bytes }
        if let directory = parsed.text("save-dir") {
            var info = stat()
            guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw UsageError("--save-dir: \(ValueParser.quoted(directory)) is not a directory")
            }
            saveDirectory = directory
        }
    }
}
