import RelayApp
import RelayCLI

/// The options `relay-central` is started with.
struct CentralOptions: Equatable, Sendable {
    /// Default and limit of `--scan-timeout`, in seconds.
    static let defaultScanTimeout = 10.0
    static let maxScanTimeout = 86_400.0

    /// `--adapter`, `--json`, `--max-message`, `--save-dir`, `--notify-path` (signal by default).
    var common = CommonOptions(notifyPath: .signal)
    /// The advertised name that makes a device a candidate (nil: `sample` for relay
    /// peripherals, any name for UART devices with `--nus`).
    var name: String?
    /// `--nus`: connect to Nordic UART Service devices (text both ways), not relay peripherals.
    var uart = false
    var scanTimeout = CentralOptions.defaultScanTimeout
    var connect: StartupTarget?
    var reconnect = false
    /// How values are written: the `AcquireWrite` socket (falling back to `WriteValue`), or `WriteValue` only.
    var writePath = WritePath.socket

    static let version = ProgramVersion.line(program: "relay-central")

    /// The command-line grammar (`--help` and `--version` are built in).
    static let parser = OptionParser(
        program: "relay-central",
        summary: """
            The central of the relay pair (the article's Apple Watch app): scans for relay
            peripherals, connects, subscribes, writes counters and sends messages. Commands are
            typed at the prompt, or read line by line from a pipe. Commands: scan, scan stop, list,
            connect [--nus] N|ADDRESS, disconnect, write [N], send TEXT, send-file PATH, read, status,
            pair, passkey NNNNNN, unpair, wait EVENT [SECONDS], sleep SECONDS, help [CMD], quit.
            A peripheral in secure mode is paired with a passkey it shows. With --nus it talks to
            any Nordic UART Service device (a micro:bit, a dev kit, a relay-peripheral) in lines
            of text. See docs/cli.md.
            """,
        version: version,
        options: CommonOptions.specs(
            peer: "the peripheral", notifyPathDefault: .signal,
            notifyPathHelp: "How notifications arrive: StartNotify and PropertiesChanged signals (default), or the "
                + "AcquireNotify socket read on its own thread (StartNotify when refused; faster, but bluetoothd "
                + "drops notifications when that socket is full).")
            + [
                .value(
                    "name", "NAME",
                    help: "Advertised name of the peripherals to list (default: sample; with --nus, any name)."),
                .flag(
                    "nus",
                    help: "Talk to Nordic UART Service devices (a micro:bit, a dev kit, a relay-peripheral): scan "
                        + "for the UART service, send TEXT writes the text, notifications are shown as lines."),
                .value(
                    "scan-timeout", "S", kind: .seconds(maximum: maxScanTimeout),
                    help: "A scan stops by itself after S seconds (default 10)."),
                .value(
                    "connect", "NAME|ADDRESS",
                    help: "Scan at start-up and connect to the first peripheral with that name or address."),
                .flag("reconnect", help: "Reconnect by itself after an unexpected disconnect."),
                .value(
                    "write-path", "socket|write-value", kind: .choice(WritePath.choices.map(\.rawValue)),
                    help: "socket (default: AcquireWrite, WriteValue when refused) or write-value (always WriteValue "
                        + "commands, each after the previous one completed)."),
            ])

    init() {}

    /// The options from parsed arguments.
    init(parsed: ParsedOptions) throws(UsageError) {
        common = try CommonOptions(parsed: parsed, notifyPathDefault: .signal)
        name = parsed.text("name")
        uart = parsed.flag("nus")
        if let seconds = parsed.seconds("scan-timeout") { scanTimeout = seconds }
        connect = parsed.text("connect").map(StartupTarget.init(parsing:))
        reconnect = parsed.flag("reconnect")
        writePath = parsed.choice("write-path", as: WritePath.self) ?? .socket
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Launch<CentralOptions> {
        try parser.launch(arguments) { parsed throws(UsageError) in try CentralOptions(parsed: parsed) }
    }
}
