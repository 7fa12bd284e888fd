import Shared

/// Which adapter to use: by kernel name (`hci1`) or by its address.
enum AdapterChoice: Equatable, Sendable, CustomStringConvertible {
    case name(String)
    case address(BluetoothAddress)

    /// Parses `hciN` or `AA:BB:CC:DD:EE:FF` (any case).
    init(parsing text: String) throws(UsageError) {
        if text.hasPrefix("hci"), text.count > 3, text.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber }) {
            self = .name(text)
        } else if text.contains(":"), let address = BluetoothAddress(text) {
            self = .address(address)
        } else {
            throw UsageError(
                "--adapter: \(ArgumentParser.quoted(text)) is neither an adapter name like hci1 nor an address like 00:AA:01:01:00:01")
        }
    }

    var description: String {
        switch self {
        case .name(let name): return name
        case .address(let address): return address.description
        }
    }
}

/// The peer `--connect` asks for at start-up: an address, or an advertised name.
enum StartupTarget: Equatable, Sendable, CustomStringConvertible {
    case address(BluetoothAddress)
    case name(String)

    /// An address when `text` is one (`AA:BB:CC:DD:EE:FF`), else a name.
    init(parsing text: String) {
        if text.contains(":"), let address = BluetoothAddress(text) {
            self = .address(address)
        } else {
            self = .name(text)
        }
    }

    var description: String {
        switch self {
        case .address(let address): return address.description
        case .name(let name): return name
        }
    }
}

/// The options `relay-central` is started with.
struct CentralOptions: Equatable, Sendable {
    /// Default and limits of `--max-message`.
    static let defaultMaxMessage = 1 << 20
    static let maxMessageLimit = 1 << 30
    /// Default and limits of `--scan-timeout`, in seconds.
    static let defaultScanTimeout = 10.0
    static let maxScanTimeout = 86_400.0

    var adapter: AdapterChoice?
    /// The advertised name that makes a device a candidate.
    var name = "sample"
    var json = false
    var scanTimeout = CentralOptions.defaultScanTimeout
    var connect: StartupTarget?
    var reconnect = false
    var maxMessage = CentralOptions.defaultMaxMessage
    var saveDirectory: String?
    /// How values are written: the `AcquireWrite` socket (falling back to `WriteValue`), or `WriteValue` only.
    var writePath = WritePath.socket
    /// How notifications arrive: the `AcquireNotify` socket (falling back to `StartNotify`), or signals only.
    var notifyPath = NotifyPath.signal
}

/// What the command line asks for.
enum CentralLaunch: Equatable, Sendable {
    case run(CentralOptions)
    case help
    case version
}

extension CentralLaunch {
    static let usage = """
        usage: relay-central [--adapter hciN|ADDRESS] [--name NAME] [--json] [--scan-timeout S]
                             [--connect NAME|ADDRESS] [--reconnect] [--max-message BYTES]
                             [--save-dir DIR] [--write-path socket|write-value]
                             [--notify-path signal|socket] [--help] [--version]
        """

    static let optionHelp = """
        Options:
          --adapter hciN|ADDRESS  use this adapter (default: the first one bluetoothd offers)
          --name NAME             advertised name of the peripherals to list (default: sample)
          --json                  print every event as one JSON object per line on stdout
          --scan-timeout S        a scan stops by itself after S seconds (default 10)
          --connect NAME|ADDRESS  scan at start-up and connect to the first peripheral with that name or address
          --reconnect             reconnect by itself after an unexpected disconnect
          --max-message BYTES     largest message accepted from the peripheral (default 1048576; K/M suffixes)
          --save-dir DIR          save every received message to a file in DIR
          --write-path PATH       socket (default: AcquireWrite, WriteValue when refused) or write-value
                                  (always WriteValue commands, each after the previous one completed)
          --notify-path PATH      signal (default: StartNotify, values as PropertiesChanged signals) or
                                  socket (AcquireNotify, read on its own thread; StartNotify when refused;
                                  faster, but bluetoothd drops notifications when that socket is full)
          --help                  show this help and exit
          --version               show the version and exit
        Commands (type 'help' inside): scan, scan stop, list, connect N|ADDRESS, disconnect, write [N],
          send TEXT, send-file PATH, read, status, wait EVENT [SECONDS], sleep SECONDS, help [CMD], quit
        """

    /// Parses the arguments after the program name.
    init(parsing arguments: [String]) throws(UsageError) {
        var options = CentralOptions()
        var index = 0
        func value(for option: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var option = argument
            var inline: String? = nil
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                option = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if inline != nil, ["--json", "--reconnect", "--help", "--version"].contains(option) {
                throw UsageError("\(option) takes no value")
            }
            switch option {
            case "--help", "-h":
                self = .help
                return
            case "--version":
                self = .version
                return
            case "--json": options.json = true
            case "--reconnect": options.reconnect = true
            case "--adapter": options.adapter = try AdapterChoice(parsing: value(for: option, inline: inline))
            case "--name":
                let name = try value(for: option, inline: inline)
                guard !name.isEmpty else { throw UsageError("--name needs a non-empty name") }
                options.name = name
            case "--scan-timeout":
                let text = try value(for: option, inline: inline)
                guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let seconds = Double(text),
                    seconds > 0, seconds <= CentralOptions.maxScanTimeout
                else {
                    throw UsageError(
                        "--scan-timeout: \(ArgumentParser.quoted(text)) is not a number of seconds above 0 and at most \(Int(CentralOptions.maxScanTimeout))")
                }
                options.scanTimeout = seconds
            case "--connect":
                let text = try value(for: option, inline: inline)
                guard !text.isEmpty else { throw UsageError("--connect needs a name or an address") }
                options.connect = StartupTarget(parsing: text)
            case "--max-message":
                options.maxMessage = try Self.byteCount(value(for: option, inline: inline), option: option)
            case "--write-path":
                let text = try value(for: option, inline: inline)
                guard let path = WritePath(rawValue: text) else {
                    throw UsageError("--write-path: \(ArgumentParser.quoted(text)) is neither socket nor write-value")
                }
                options.writePath = path
            case "--notify-path":
                let text = try value(for: option, inline: inline)
                guard let path = NotifyPath(rawValue: text) else {
                    throw UsageError("--notify-path: \(ArgumentParser.quoted(text)) is neither socket nor signal")
                }
                options.notifyPath = path
            case "--save-dir":
                let directory = try value(for: option, inline: inline)
                guard !directory.isEmpty else { throw UsageError("--save-dir needs a directory") }
                options.saveDirectory = directory
            default:
                if argument.hasPrefix("-") { throw UsageError("unknown option \(ArgumentParser.quoted(argument))") }
                throw UsageError(
                    "unexpected argument \(ArgumentParser.quoted(argument)) (commands are typed at the prompt or piped on stdin)")
            }
            index += 1
        }
        self = .run(options)
    }

    /// Parses a byte count like `65536`, `64K` or `1M` (binary multiples).
    static func byteCount(_ text: String, option: String) throws(UsageError) -> Int {
        var digits = Substring(text)
        var multiplier = 1
        for (suffixes, factor) in [(["KiB", "K", "k"], 1 << 10), (["MiB", "M", "m"], 1 << 20)] {
            if let suffix = suffixes.first(where: { digits.hasSuffix($0) }) {
                digits = digits.dropLast(suffix.count)
                multiplier = factor
                break
            }
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits),
            !number.multipliedReportingOverflow(by: multiplier).overflow
        else { throw UsageError("\(option): \(ArgumentParser.quoted(text)) is not a byte count (e.g. 1048576 or 1M)") }
        let bytes = number * multiplier
        guard bytes >= 1, bytes <= CentralOptions.maxMessageLimit else {
            throw UsageError("\(option): \(bytes) is out of range (1 to \(CentralOptions.maxMessageLimit) bytes)")
        }
        return bytes
    }
}
