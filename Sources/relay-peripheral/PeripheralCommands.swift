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
    case status
}

extension PeripheralDriver {
    /// The program's commands: each spec builds a `PeripheralCommand` and runs it.
    func commandSpecs() -> [CommandSpec] {
        [
            CommandSpec(
                "start", summary: "Register the GATT service and start advertising.",
                details: """
                    Registers the relay GATT application (service 6B5C4A86-..., write and notify
                    characteristics) and the advertisement with the LocalName from --name. Idempotent.
                    If Bluetooth is off or bluetoothd is away, it happens as soon as they are back.
                    Then: wait advertising.
                    """
            ) { [unowned self] _ in try self.run(.start) },
            CommandSpec(
                "stop", summary: "Stop advertising (connected centrals stay connected).",
                details: "Unregisters the advertisement; the GATT service stays for connected centrals."
            ) { [unowned self] _ in try self.run(.stop) },
            CommandSpec(
                "notify", synopsis: "[N]", summary: "Notify the counter to subscribed centrals, then count up.",
                details: """
                    Sends the counter as a bare 4-byte little-endian UInt32 to every subscribed central,
                    then adds 1 (count += 1, like the original app). With N (0 to 4294967295) sends N and
                    counts on from N+1. A 'notified' event follows once bluetoothd has it.
                    """,
                shape: .words(min: 0, max: 1)
            ) { [unowned self] context in try self.run(.notify(value: try context.uint32(0, "N"))) },
            MessageCommands.send(
                chunking:
                    "chunked at min(MTU-3, 510) bytes of the smallest MTU among the subscribed centrals and paced so nothing is dropped"
            ) { [unowned self] message, _ in try self.run(.send(message)) },
            MessageCommands.sendFile { [unowned self] message, _ in try self.run(.send(message)) },
            CommandSpec(
                "status", summary: "Show the adapter, advertising, counters and connected centrals.",
                isTransparentToWait: true
            ) { [unowned self] _ in try self.run(.status) },
        ]
    }
}
