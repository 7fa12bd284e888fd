import RelayApp
import RelayCLI
import RelayProtocol
import RelayREPL

/// One of relay-peripheral's own commands (the REPL adds `wait`, `sleep`, `help` and `quit`).
enum PeripheralCommand: Equatable, Sendable {
    case start
    case stop
    /// Notify the counter (or `value`, after which counting goes on from it).
    case notify(value: UInt32?)
    case send(Message)
    /// `status`, or `status CENTRAL`: one central in detail.
    case status(CentralChoice?)
}

/// The REPL commands of relay-peripheral (the REPL adds `wait`, `sleep`, `help` and `quit`): each
/// spec builds a `PeripheralCommand` from its checked arguments and hands it to the driver.
enum PeripheralCommands {
    /// The command a checked line asks for (`send` and `send-file` are `MessageCommands`).
    static func command(_ context: CommandContext) throws(CommandError) -> PeripheralCommand {
        try command(context.name, context.arguments)
    }

    /// The command `name` with its split `arguments` (as the command table split them).
    static func command(_ name: String, _ arguments: [String]) throws(CommandError) -> PeripheralCommand {
        switch name {
        case "start": return .start
        case "stop": return .stop
        case "notify":
            guard let word = arguments.first else { return .notify(value: nil) }
            return .notify(value: try ValueParser.uint32(word, "N", command: "notify"))
        case "status":
            guard let word = arguments.first else { return .status(nil) }
            return .status(try CentralChoice(parsing: word, command: "status"))
        default: throw CommandError("\(name): not a relay-peripheral command")
        }
    }

    static func specs(driver: PeripheralDriver) -> [CommandSpec] {
        [
            CommandSpec(
                "start", summary: "Register the GATT service and start advertising.",
                details: """
                    Registers the relay GATT application (service 6B5C4A86-..., write and notify
                    characteristics) and the advertisement with the LocalName from --name. Idempotent.
                    If Bluetooth is off or bluetoothd is away, it happens as soon as they are back.
                    Then: wait advertising.
                    """
            ) { [unowned driver] context in
                StartupTrace.once("start command read")
                return try driver.run(command(context), context)
            },
            CommandSpec(
                "stop", summary: "Stop advertising (connected centrals stay connected).",
                details: "Unregisters the advertisement; the GATT service stays for connected centrals."
            ) { [unowned driver] context in try driver.run(command(context), context) },
            CommandSpec(
                "notify", synopsis: "[N]", summary: "Notify the counter to subscribed centrals, then count up.",
                details: """
                    Sends the counter as a bare 4-byte little-endian UInt32 to every subscribed central,
                    then adds 1 (count += 1, like the original app). With N (0 to 4294967295) sends N and
                    counts on from N+1. A 'notified' event follows once bluetoothd has it.
                    """,
                shape: .words(min: 0, max: 1)
            ) { [unowned driver] context in try driver.run(command(context), context) },
            MessageCommands.send(
                chunking:
                    "cut for the links (values of up to 8192 bytes on the L2CAP lanes, min(MTU-3, 510) of the smallest MTU among the subscribed centrals on GATT) and paced so nothing is dropped"
            ) { [unowned driver] message, context in driver.run(.send(message), context) },
            MessageCommands.sendFile { [unowned driver] message, context in driver.run(.send(message), context) },
            CommandSpec(
                "status", synopsis: "[CENTRAL]",
                summary: "Show the adapter, advertising, counters and connected centrals (or one in detail).",
                details: """
                    Lists every connected central on one line, numbered. With CENTRAL (its number \
                    in that list, or its address), shows that central alone, in detail.
                    """,
                shape: .words(min: 0, max: 1),
                completion: .dynamic { [unowned driver] in
                    let listed = driver.session.listedCentrals
                    return listed.indices.map { String($0 + 1) } + listed.map(\.description)
                },
                isTransparentToWait: true
            ) { [unowned driver] context in try driver.run(command(context), context) },
        ]
    }
}
