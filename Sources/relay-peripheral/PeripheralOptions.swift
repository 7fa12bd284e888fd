import Shared

/// Which adapter to use: by kernel name (`hci0`) or by its address.
enum AdapterChoice: Equatable, Sendable, CustomStringConvertible {
    case name(String)
    case address(BluetoothAddress)

    /// Parses `hciN` or `AA:BB:CC:DD:EE:FF` (any case).
    init(parsing text: String) throws(UsageError) {
        if text.hasPrefix("hci"), text.count > 3, text.count < 8,
            text.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber })
        {
            self = .name(text)
        } else if text.contains(":"), let address = BluetoothAddress(text) {
            self = .address(address)
        } else {
            throw UsageError("--adapter: '\(text)' is neither an adapter name like hci0 nor an address like 00:AA:01:00:00:00")
        }
    }

    var description: String {
        switch self {
        case .name(let name): return name
        case .address(let address): return address.description
        }
    }
}

/// How notifications reach bluetoothd.
enum NotifyPath: String, Equatable, Sendable, CaseIterable {
    /// Through the socket bluetoothd acquires with `AcquireNotify` (flow control by writability).
    case socket
    /// `PropertiesChanged` signals after `StartNotify` (no `AcquireNotify` offered).
    case signal
}

/// The options `relay-peripheral` runs with.
struct PeripheralOptions: Equatable, Sendable {
    /// Default and limits of `--max-message`.
    static let defaultMaxMessage = 1 << 20
    static let maxMessageLimit = 1 << 30

    var adapter: AdapterChoice?
    var name = AdvertisedName.default
    var json = false
    var maxMessage = PeripheralOptions.defaultMaxMessage
    var saveDirectory: String?
    /// Echo every received counter back as a notification (round-trip benchmark).
    var echo = false
    /// `--notify-path`: the socket (default) or `PropertiesChanged` signals.
    var notifyPath = NotifyPath.socket

    static let version = "relay-peripheral 0.1.0 (relay wire protocol v1)"

    /// The command-line grammar (`--help` and `--version` are built in).
    static let parser = OptionParser(
        program: "relay-peripheral",
        summary: """
            The peripheral of the relay pair (the article's iPhone app): advertises the relay GATT
            service, shows the counters and messages centrals write, notifies counters and sends
            messages. Commands are typed at the prompt, or read line by line from a pipe.
            Commands: start, stop, notify [N], send TEXT, send-file PATH, status,
            wait EVENT [SECONDS], sleep SECONDS, help [CMD], quit. See docs/cli.md.
            """,
        version: version,
        options: [
            .value("adapter", "hciN|ADDRESS", help: "Use this adapter (default: the first one bluetoothd offers)."),
            .value("name", "NAME", help: "Advertised LocalName (default: sample; at most 29 bytes of UTF-8)."),
            .flag("json", help: "Print every event as one JSON object per line."),
            .value(
                "max-message", "BYTES", kind: .integer(1...maxMessageLimit),
                help: "Largest message accepted from a central (default 1048576)."),
            .value("save-dir", "DIR", help: "Save every received message as a file in DIR."),
            .flag("echo", help: "Notify every received counter straight back (round-trip benchmark)."),
            .value(
                "notify-path", "socket|signal",
                help: "How notifications reach bluetoothd: its AcquireNotify socket (default) or PropertiesChanged signals."),
        ])

    /// The options from parsed arguments, with the checks the parser cannot make.
    init(parsed: ParsedOptions) throws(UsageError) {
        if let text = parsed.text("adapter") { adapter = try AdapterChoice(parsing: text) }
        if let text = parsed.text("name") {
            do {
                name = try AdvertisedName(text)
            } catch {
                throw UsageError("--name: \(error)")
            }
        }
        json = parsed.flag("json")
        echo = parsed.flag("echo")
        if let bytes = parsed.integer("max-message") { maxMessage = bytes }
        saveDirectory = parsed.text("save-dir")
        if let text = parsed.text("notify-path") {
            guard let path = NotifyPath(rawValue: text) else {
                throw UsageError("--notify-path: '\(text)' is neither socket nor signal")
            }
            notifyPath = path
        }
    }

    init() {}

    /// Parses the arguments after the program name: nil outcome values mean help/version text.
    static func parse(_ arguments: [String]) throws(UsageError) -> Launch {
        switch try parser.parse(arguments) {
        case .help(let text): return .print(text)
        case .version(let text): return .print(text)
        case .run(let parsed): return .run(try PeripheralOptions(parsed: parsed))
        }
    }

    /// What the command line asks for.
    enum Launch: Equatable, Sendable {
        case run(PeripheralOptions)
        /// Print this (help or version) and exit 0.
        case print(String)
    }
}
