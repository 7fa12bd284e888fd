import RelayProtocol
import Shared

extension PeripheralController {
    /// The program's commands (the REPL adds `wait`, `sleep`, `help` and `quit`).
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
            ) { [unowned self] _ in
                StartupTrace.once("start command read")
                self.perform(self.session.start())
                return .success
            },
            CommandSpec(
                "stop", summary: "Stop advertising (connected centrals stay connected).",
                details: "Unregisters the advertisement; the GATT service stays for connected centrals."
            ) { [unowned self] _ in
                self.perform(self.session.stop())
                return .success
            },
            CommandSpec(
                "notify", synopsis: "[N]", summary: "Notify the counter to subscribed centrals, then count up.",
                details: """
                    Sends the counter as a bare 4-byte little-endian UInt32 to every subscribed central,
                    then adds 1 (count += 1, like the original app). With N (0 to 4294967295) sends N and
                    counts on from N+1. A 'notified' event follows once bluetoothd has it.
                    """,
                shape: .words(min: 0, max: 1)
            ) { [unowned self] context in
                let value = try context.uint32(0, "N")
                try self.run { session throws(CommandError) in try session.notify(value: value) }
                return .success
            },
            CommandSpec(
                "send", synopsis: "TEXT", summary: "Send TEXT as a framed text message.",
                details: """
                    Sends the rest of the line as UTF-8 text through the framing protocol, chunked at
                    min(MTU-3, 510) bytes of the smallest MTU among the subscribed centrals and paced so
                    nothing is dropped. Quote it ("...") to keep leading spaces or use \\n escapes.
                    A 'sent' event follows once the last frame is handed over.
                    """,
                shape: .restOfLine(required: true)
            ) { [unowned self] context in
                let text = try context.requiredArgument(0, "TEXT")
                try self.run { session throws(CommandError) in try session.send(Message(text: text)) }
                return .success
            },
            CommandSpec(
                "send-file", synopsis: "PATH", summary: "Send a file's bytes as a framed binary message.",
                details: "Reads the file (at most 256 MiB) and sends it like send, as a binary message.",
                shape: .restOfLine(required: true), completion: .paths
            ) { [unowned self] context in
                let path = try context.requiredArgument(0, "PATH")
                let bytes = try FileArgument.read(path, maximumBytes: Self.sendFileLimit, command: "send-file")
                try self.run { session throws(CommandError) in try session.send(Message(binary: bytes)) }
                return .success
            },
            CommandSpec(
                "status", summary: "Show the adapter, advertising, counters and connected centrals.",
                isTransparentToWait: true
            ) { [unowned self] context in
                context.console.report(PeripheralEvent.status(self.status))
                return .success
            },
        ]
    }

    /// Runs a session command that may refuse, and performs its actions.
    private func run(_ body: (inout PeripheralSession) throws(CommandError) -> [PeripheralAction]) throws(CommandError) {
        let actions = try body(&session)
        perform(actions)
    }
}
