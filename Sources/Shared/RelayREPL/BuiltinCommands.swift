import RelayCLI
import RelayRuntime

extension REPL {
    /// `wait`, `sleep`, `help` and `quit`.
    func makeBuiltins() -> [CommandSpec] {
        let defaultWait = configuration.defaultWaitSeconds
        let waitCompletion: ArgumentCompletion =
            configuration.eventNames.isEmpty ? .none : .words(configuration.eventNames)
        return [
            CommandSpec(
                "wait", synopsis: "EVENT [SECONDS]",
                summary: "Wait for an event (default \(Self.format(defaultWait)) s); fails on time-out.",
                details: """
                    Satisfied by the first EVENT that arrived after the last command (other than
                    wait, sleep, help and display-only commands) started, even while that command
                    was still running, and not used by an earlier wait. Otherwise blocks until one
                    arrives, or fails after SECONDS.
                    """,
                shape: .words(min: 1, max: 2), completion: waitCompletion, isTransparentToWait: true
            ) { [unowned self] context in try self.runWait(context) },
            CommandSpec(
                "sleep", synopsis: "SECONDS", summary: "Pause before the next command (events still show).",
                shape: .words(min: 1, max: 1), isTransparentToWait: true
            ) { context in
                let seconds = try context.seconds(0, "SECONDS", allowZero: true) ?? 0
                let timer = context.loop.schedule(after: seconds) { context.succeed() }
                context.onCancel { context.loop.cancel(timer) }
                return .pending
            },
            CommandSpec(
                "help", synopsis: "[COMMAND]", summary: "List the commands, or explain one.",
                shape: .words(min: 0, max: 1),
                completion: .dynamic { [unowned self] in self.commands.names },
                isTransparentToWait: true
            ) { [unowned self] context in
                let table = self.commands
                guard let name = context.argument(0) else {
                    context.console.print(table.helpText())
                    return .success
                }
                guard let text = table.helpText(for: name) else {
                    return .failure("help: " + table.unknownCommandMessage(name))
                }
                context.console.print(text)
                return .success
            },
            CommandSpec(
                "quit", summary: "Finish pending work and exit (also Ctrl-D).", isTransparentToWait: true
            ) { [unowned self] _ in
                self.requestQuit()
                return .success
            },
        ]
    }

    private func runWait(_ context: CommandContext) throws(CommandError) -> CommandOutcome {
        let event = try context.requiredArgument(0, "EVENT")
        let known = configuration.eventNames
        if !known.isEmpty, !known.contains(event) {
            var events = CommandTable()
            for name in known { events.add(CommandSpec(name, summary: "") { _ in .success }) }
            let hint = events.suggestion(for: event).map { " did you mean '\($0)'?" } ?? ""
            throw CommandError(
                "wait: unknown event \(ValueParser.quoted(event));\(hint) events: \(known.joined(separator: ", "))")
        }
        let seconds = try context.seconds(1, "SECONDS") ?? configuration.defaultWaitSeconds
        var timer: EventLoop.Token?
        let waiter = journal.wait(for: event) {
            if let timer { context.loop.cancel(timer) }
            context.succeed()
        }
        guard let waiter else { return .success }
        let journal = self.journal
        timer = context.loop.schedule(after: seconds) {
            journal.cancel(waiter)
            context.fail("wait: no '\(event)' event within \(Self.format(seconds)) s")
        }
        context.onCancel {
            journal.cancel(waiter)
            if let timer { context.loop.cancel(timer) }
        }
        return .pending
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
