import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayREPL

/// One of relay-central's own commands (the REPL adds `wait`, `sleep`, `help` and `quit`).
enum CentralCommand: Equatable, Sendable {
    case scan
    case scanStop
    case list
    case connect(ConnectTarget)
    /// `connect --nus`: this link is to a Nordic UART Service device.
    case connectUART(ConnectTarget)
    case disconnect
    /// Write the counter (or `value`, after which counting goes on from it).
    case write(value: UInt32?)
    /// A message to send; `send-file` reads the file first and hands over its bytes.
    case send(Message)
    case read
    case status
    /// Pair with the connected peripheral (secure mode).
    case pair
    /// Forget the bond with the peripheral.
    case unpair
    /// The passkey the peripheral shows, for the pairing in progress.
    case passkey(Passkey)
}

/// The REPL commands of relay-central (the REPL adds `wait`, `sleep`, `help` and `quit`): each
/// spec builds a `CentralCommand` from its checked arguments and hands it to the driver.
enum CentralCommands {
    /// The command a checked line asks for (`send` and `send-file` are `MessageCommands`).
    static func command(_ context: CommandContext) throws(CommandError) -> CentralCommand {
        try command(context.name, context.arguments)
    }

    /// The command `name` with its split `arguments` (as the command table split them).
    static func command(_ name: String, _ arguments: [String]) throws(CommandError) -> CentralCommand {
        switch name {
        case "scan":
            guard let word = arguments.first else { return .scan }
            guard word == "stop" else {
                throw CommandError("scan: \(ValueParser.quoted(word)) is not 'stop' (usage: scan [stop])")
            }
            return .scanStop
        case "list": return .list
        case "connect":
            var words = arguments
            let uart = words.first == "--nus"
            if uart { words.removeFirst() }
            guard words.count == 1, let word = words.first else {
                throw CommandError("connect: give one list index or address (usage: connect [--nus] N|ADDRESS)")
            }
            let target: ConnectTarget
            if !word.isEmpty, word.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(word) {
                target = .index(index)
            } else if word.contains(":"), let address = BluetoothAddress(word) {
                target = .address(address)
            } else if word.hasPrefix("-") {
                throw CommandError(
                    "connect: \(ValueParser.quoted(word)) is not an option (usage: connect [--nus] N|ADDRESS)")
            } else {
                throw CommandError(
                    "connect: \(ValueParser.quoted(word)) is neither a list index nor an address like 00:AA:01:00:00:00"
                )
            }
            return uart ? .connectUART(target) : .connect(target)
        case "disconnect": return .disconnect
        case "write":
            guard let word = arguments.first else { return .write(value: nil) }
            return .write(value: try ValueParser.uint32(word, "N", command: "write"))
        case "read": return .read
        case "status": return .status
        case "pair": return .pair
        case "unpair": return .unpair
        case "passkey":
            guard arguments.count == 1, let passkey = Passkey(parsing: arguments[0]) else {
                let word = arguments.first.map { ValueParser.quoted($0) + " is not" } ?? "give"
                throw CommandError("passkey: \(word) the 6 digits the peripheral shows (usage: passkey NNNNNN)")
            }
            return .passkey(passkey)
        default: throw CommandError("\(name): not a relay-central command")
        }
    }

    static func specs(driver: CentralDriver) -> [CommandSpec] {
        [
            CommandSpec(
                "scan", synopsis: "[stop]", summary: "Look for relay peripherals (or stop looking).",
                details: """
                    Starts LE discovery filtered on the relay service UUID. Peripherals advertising the name
                    given by --name (default sample) are listed as they appear, each once, with an index, address
                    and RSSI. The scan stops by itself after --scan-timeout seconds (default 10), or with 'scan stop'.
                    """,
                shape: .words(min: 0, max: 1), completion: .words(["stop"])
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "list", summary: "Show the peripherals found by the last scan.",
                details: "Lists the candidates found so far with their index, address, name and last RSSI.",
                isTransparentToWait: true
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "connect", synopsis: "[--nus] N|ADDRESS", summary: "Connect, subscribe, learn the MTU.",
                details: """
                    Connects to candidate N of the list (or to ADDRESS), resolves its services, checks it is a relay
                    peripheral, subscribes to notifications and learns the MTU. A 'ready' event follows. Scanning stops.
                    With --nus (or when started with --nus) the device is any Nordic UART Service device (a micro:bit,
                    a dev kit, a relay-peripheral): its writable characteristic takes 'send TEXT' as text, and what it
                    notifies or indicates is shown as lines.
                    """,
                shape: .words(min: 1, max: 2),
                completion: .dynamic { [weak driver] in
                    ["--nus"]
                        + (driver?.session.scanning.candidates.flatMap { [String($0.index), $0.address.description] }
                            ?? [])
                }
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "disconnect", summary: "Disconnect from the peripheral.",
                details: "Ends the connection (no automatic reconnect follows, even with --reconnect)."
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "write", synopsis: "[N]", summary: "Write the counter, then count up.",
                details: """
                    Writes the counter as a bare 4-byte little-endian UInt32 without response, like the original
                    app, then adds 1. With N (0 to 4294967295), writes N and counts on from N+1.
                    """,
                shape: .words(min: 0, max: 1)
            ) { [unowned driver] context in try driver.run(command(context), context) },
            MessageCommands.send(
                chunking:
                    "cut for the link (values of up to 8192 bytes on the L2CAP lane, min(MTU-3, 510) on GATT) and paced so nothing is lost"
            ) {
                [unowned driver] message, context in driver.run(.send(message), context)
            },
            MessageCommands.sendFile { [unowned driver] message, context in driver.run(.send(message), context) },
            CommandSpec(
                "read", summary: "Read both characteristics.",
                details:
                    "Reads the write and the notify characteristic of the connected peripheral and shows their values."
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "status", summary: "Show the adapter, the link, the MTU and the counters.",
                details: """
                    Prints the adapter and its state, the connection state, the peer, the MTU and the write path,
                    the next counter to write and the last counter received.
                    """,
                isTransparentToWait: true
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "pair", summary: "Pair with the connected peripheral (secure mode).",
                details: """
                    Asks bluetoothd to pair and bond with the connected peripheral through relay-central's agent
                    (LE Secure Connections, passkey entry). The peripheral shows a 6-digit passkey: type it with
                    'passkey NNNNNN'. relay-central pairs by itself when a peripheral started with --secure is
                    connected; 'pair' is for doing it by hand. The bond is kept by bluetoothd.
                    """
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "passkey", synopsis: "NNNNNN", summary: "Type the passkey the peripheral shows.",
                details: """
                    Answers the pairing in progress (a 'pairing-request' event) with the 6 digits the peripheral
                    shows. A wrong passkey fails the pairing on both sides.
                    """,
                shape: .words(min: 1, max: 1)
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "unpair", summary: "Forget the bond with the peripheral.",
                details: """
                    Removes the peripheral (connected, or the last one) from bluetoothd with its bond: the link
                    ends, and the next connection pairs again.
                    """
            ) { [unowned driver] context in try driver.run(command(context), context) },
        ]
    }
}
