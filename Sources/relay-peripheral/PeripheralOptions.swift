import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol

/// The options `relay-peripheral` runs with.
struct PeripheralOptions: Equatable, Sendable {
    /// `--adapter`, `--json`, `--max-message`, `--save-dir`, `--notify-path` (socket by default).
    var common = CommonOptions(notifyPath: .socket)
    var name = AdvertisedName.default
    /// Echo every received counter back as a notification (round-trip benchmark).
    var echo = false
    /// The Nordic UART Service for phone UART apps and the line ending of text sent to them;
    /// nil with `--no-nus`.
    var uart: UARTLineEnding? = .lf
    /// `--allow`: the only centrals whose values are taken (nil: every central's).
    var allowedCentrals: Set<BluetoothAddress>?
    /// `--secure`: values need a bonded, authenticated link; passkeys are shown at the prompt.
    var secure = false
    /// `--advertising-interval`: how often the advertisement goes on the air.
    var advertisingInterval = AdvertisingInterval.relayDefault

    static let version = ProgramVersion.line(program: "relay-peripheral")

    /// The command-line grammar (`--help` and `--version` are built in).
    static let parser = OptionParser(
        program: "relay-peripheral",
        summary: """
            The peripheral of the relay pair (the article's iPhone app): advertises the relay GATT
            service, shows the counters and messages centrals write, notifies counters and sends
            messages. Commands are typed at the prompt, or read line by line from a pipe.
            Serves the Nordic UART Service too, for phone UART apps (--no-nus turns it off).
            Commands: start, stop, notify [N], send TEXT, send-file PATH, status,
            wait EVENT [SECONDS], sleep SECONDS, help [CMD], quit. See docs/cli.md.
            """,
        version: version,
        options: CommonOptions.specs(
            peer: "a central", notifyPathDefault: .socket,
            notifyPathHelp:
                "How notifications reach bluetoothd: its AcquireNotify socket (default) or PropertiesChanged signals.")
            + [
                .value("name", "NAME", help: "Advertised LocalName (default: sample; at most 29 bytes of UTF-8)."),
                .value(
                    "advertising-interval", "MS",
                    help:
                        "Advertise every MS milliseconds, \(AdvertisingInterval.range.lowerBound)-\(AdvertisingInterval.range.upperBound) "
                        + "(default: \(AdvertisingInterval.relayDefault.milliseconds); a room of centrals finds the peripheral sooner "
                        + "the shorter it is; BlueZ 5.66 honours it only with bluetoothd -E; see --check)."),
                .flag("echo", help: "Notify every received counter straight back (round-trip benchmark)."),
                .flag("no-nus", help: "Do not serve the Nordic UART Service for phone UART apps (served by default)."),
                .value(
                    "allow", "ADDRESS[,ADDRESS...]",
                    help: "Take values only from these centrals: any other central's are dropped and reported."),
                .flag(
                    "secure",
                    help:
                        "Secure mode: every value needs a paired, authenticated link (LE Secure Connections); "
                        + "the passkey of each pairing is shown here, to be typed on the central."),
            ])

    init() {}

    /// The options from parsed arguments, with the checks the parser cannot make.
    init(parsed: ParsedOptions) throws(UsageError) {
        common = try CommonOptions(parsed: parsed, notifyPathDefault: .socket)
        if let text = parsed.text("name") {
            do {
                name = try AdvertisedName(text)
            } catch {
                throw UsageError("--name: \(error)")
            }
        }
        echo = parsed.flag("echo")
        if let text = parsed.text("advertising-interval") {
            guard let milliseconds = UInt32(text), let interval = AdvertisingInterval(milliseconds: milliseconds) else {
                throw UsageError(
                    "--advertising-interval: \(ValueParser.quoted(text)) is not a number of milliseconds from "
                        + "\(AdvertisingInterval.range.lowerBound) to \(AdvertisingInterval.range.upperBound)")
            }
            advertisingInterval = interval
        }
        secure = parsed.flag("secure")
        if let text = parsed.text("allow") { allowedCentrals = try Self.allowList(text) }
        uart = common.uartEnding
        if parsed.flag("no-nus") {
            guard parsed.text("nus-eol") == nil else {
                throw UsageError("--nus-eol needs the UART service: drop --no-nus")
            }
            uart = nil
        }
    }

    /// `--allow`'s value: one or more addresses separated by commas.
    static func allowList(_ text: String) throws(UsageError) -> Set<BluetoothAddress> {
        var addresses = Set<BluetoothAddress>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let word = String(item.filter { !$0.isWhitespace })
            guard let address = BluetoothAddress(word) else {
                throw UsageError(
                    "--allow: \(ValueParser.quoted(word)) is not a Bluetooth address (like 00:AA:01:00:00:23)")
            }
            addresses.insert(address)
        }
        return addresses
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Launch<PeripheralOptions> {
        try parser.launch(arguments) { parsed throws(UsageError) in try PeripheralOptions(parsed: parsed) }
    }
}
