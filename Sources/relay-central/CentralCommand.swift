import Shared

/// What `connect` is given: an index from the scan list, or an address.
enum ConnectTarget: Equatable, Sendable, CustomStringConvertible {
    case index(Int)
    case address(BluetoothAddress)

    var description: String {
        switch self {
        case .index(let index): return String(index)
        case .address(let address): return address.description
        }
    }
}

/// One of relay-central's own commands, parsed from its line (`wait`, `sleep`, `help` and `quit`
/// are the REPL's built-ins).
enum CentralCommand: Equatable, Sendable {
    case scan
    case scanStop
    case list
    case connect(ConnectTarget)
    case disconnect
    /// Write the counter (or `value`, after which counting goes on from it).
    case write(value: UInt32?)
    case send(text: String)
    case sendFile(path: String)
    case read
    case status

    /// Longest line accepted; longer input is refused rather than processed.
    static let maxLineBytes = 64 * 1024

    /// A command's name, synopsis and explanation (for `help` and completion).
    struct Info: Sendable {
        let name: String
        let synopsis: String
        let summary: String
        let details: String
    }

    /// Every command, in the order `help` lists them.
    static let all: [Info] = [
        Info(name: "scan", synopsis: "scan | scan stop", summary: "look for relay peripherals (or stop looking)",
            details: "Starts LE discovery filtered on the relay service UUID. Peripherals advertising the name "
                + "given by --name (default sample) are listed as they appear, each once, with an index, address "
                + "and RSSI. The scan stops by itself after --scan-timeout seconds (default 10), or with 'scan stop'."),
        Info(name: "list", synopsis: "list", summary: "show the peripherals found by the last scan",
            details: "Lists the candidates found so far with their index, address, name and last RSSI."),
        Info(name: "connect", synopsis: "connect N|ADDRESS", summary: "connect, subscribe, learn the MTU",
            details: "Connects to candidate N of the list (or to ADDRESS), resolves its services, checks it is a relay "
                + "peripheral, subscribes to notifications and learns the MTU. A 'ready' event follows. Scanning stops."),
        Info(name: "disconnect", synopsis: "disconnect", summary: "disconnect from the peripheral",
            details: "Ends the connection (no automatic reconnect follows, even with --reconnect)."),
        Info(name: "write", synopsis: "write [N]", summary: "write the counter, then count up",
            details: "Writes the counter as a bare 4-byte little-endian UInt32 without response, like the original "
                + "app, then adds 1. With N (0 to 4294967295), writes N and counts on from N+1."),
        Info(name: "send", synopsis: "send TEXT", summary: "send TEXT as a framed message",
            details: "Sends the rest of the line as a UTF-8 text message through the framing protocol, chunked at "
                + "min(MTU-3, 510) bytes and paced so nothing is lost. A 'sent' event follows."),
        Info(name: "send-file", synopsis: "send-file PATH", summary: "send a file's bytes as a framed message",
            details: "Reads the file and sends its bytes as a binary message, like send."),
        Info(name: "read", synopsis: "read", summary: "read both characteristics",
            details: "Reads the write and the notify characteristic of the connected peripheral and shows their values."),
        Info(name: "status", synopsis: "status", summary: "show adapter, state, peer, MTU and counters",
            details: "Prints the adapter and its state, the connection state, the peer, the MTU and the write path, "
                + "the next counter to write and the last counter received."),
    ]

    static func info(named name: String) -> Info? { all.first { $0.name == name } }

    /// Parses one input line. Blank lines and `#` comments are `nil`.
    static func parse(_ line: String) throws(CommandError) -> CentralCommand? {
        guard line.utf8.count <= maxLineBytes else {
            throw CommandError("line too long (\(line.utf8.count) bytes; at most \(maxLineBytes))")
        }
        if line.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7f }) {
            throw CommandError("control characters are not allowed in commands")
        }
        let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
        let name = String(trimmed.prefix(while: { $0 != " " && $0 != "\t" }))
        let rest = trimmed.dropFirst(name.count)
        let restText = String(rest.dropFirst())  // exactly one separator removed: send keeps inner spaces
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)

        func noArguments(_ command: CentralCommand) throws(CommandError) -> CentralCommand {
            guard words.isEmpty else { throw CommandError("\(name) takes no arguments (usage: \(name))") }
            return command
        }
        switch name {
        case "scan":
            if words.isEmpty { return .scan }
            guard words == ["stop"] else { throw CommandError("usage: scan | scan stop") }
            return .scanStop
        case "list": return try noArguments(.list)
        case "disconnect": return try noArguments(.disconnect)
        case "read": return try noArguments(.read)
        case "status": return try noArguments(.status)
        case "connect":
            guard words.count == 1 else { throw CommandError("usage: connect N|ADDRESS") }
            let word = words[0]
            if word.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(word) {
                return .connect(.index(index))
            }
            if let address = BluetoothAddress(word), word.contains(":") { return .connect(.address(address)) }
            throw CommandError(
                "connect: '\(clip(word))' is neither a list index nor an address like 00:AA:01:00:00:00")
        case "write":
            guard words.count <= 1 else { throw CommandError("usage: write [N]") }
            guard let word = words.first else { return .write(value: nil) }
            guard word.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(word) else {
                throw CommandError(
                    "write: '\(clip(word))' is not a counter value (a whole number from 0 to \(UInt32.max))")
            }
            return .write(value: value)
        case "send":
            guard !words.isEmpty else { throw CommandError("usage: send TEXT") }
            return .send(text: restText)
        case "send-file":
            guard !words.isEmpty else { throw CommandError("usage: send-file PATH") }
            return .sendFile(path: restText.trimmingTrailingBlanks())
        default:
            throw CommandError("unknown command '\(clip(name))' (type help for the list)")
        }
    }

    /// Shortens user text quoted in an error line.
    static func clip(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(40)) + "…"
    }
}

extension String {
    fileprivate func trimmingTrailingBlanks() -> String {
        var text = self
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
