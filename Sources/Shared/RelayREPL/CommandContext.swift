import RelayCLI
import RelayRuntime

/// What a command handler gets: its arguments, the console, the loop, and (for
/// commands that finish later) the way to report completion.
public final class CommandContext {
    /// The command name as typed.
    public let name: String
    /// The arguments, already split according to the command's ``ArgumentShape``.
    public let arguments: [String]
    /// The whole input line (without the line ending).
    public let line: String
    /// Where to print results.
    public let console: Console
    /// The program's event loop.
    public let loop: EventLoop
    private var completion: ((CommandOutcome) -> Void)?
    private var cancelHandlers: [() -> Void] = []

    init(
        name: String, arguments: [String], line: String, console: Console, loop: EventLoop,
        completion: @escaping (CommandOutcome) -> Void
    ) {
        self.name = name
        self.arguments = arguments
        self.line = line
        self.console = console
        self.loop = loop
        self.completion = completion
    }

    /// Whether the command already succeeded or failed.
    public var isFinished: Bool { completion == nil }

    /// Finishes a pending command successfully. Later calls are ignored.
    public func succeed() { finish(.success) }

    /// Finishes a pending command with a failure (`error: <message>`). Later calls are ignored.
    public func fail(_ message: String) { finish(.failure(message)) }

    /// Registers cleanup for when the user interrupts the pending command (Ctrl-C) or the
    /// program shuts down; the REPL then fails the command with "interrupted".
    public func onCancel(_ handler: @escaping () -> Void) {
        cancelHandlers.append(handler)
    }

    func finish(_ outcome: CommandOutcome) {
        guard outcome != .pending, let done = completion else { return }
        completion = nil
        cancelHandlers.removeAll()
        done(outcome)
    }

    func cancel() {
        guard !isFinished else { return }
        let handlers = cancelHandlers
        cancelHandlers.removeAll()
        for handler in handlers { handler() }
        finish(.failure("\(name): interrupted"))
    }

    // MARK: Typed arguments

    /// The argument at `index`, or nil when absent.
    public func argument(_ index: Int) -> String? {
        index < arguments.count ? arguments[index] : nil
    }

    /// The argument at `index`, or a "needs NAME" error.
    public func requiredArgument(_ index: Int, _ what: String) throws(CommandError) -> String {
        guard let value = argument(index) else {
            throw CommandError("\(name): missing \(what)")
        }
        return value
    }

    /// The argument at `index` as a UInt32 (nil when absent); range and syntax errors are thrown.
    public func uint32(_ index: Int, _ what: String) throws(CommandError) -> UInt32? {
        guard let text = argument(index) else { return nil }
        return try ValueParser.uint32(text, what, command: name)
    }

    /// The argument at `index` as a duration in seconds (nil when absent), bounded by `maximum`.
    public func seconds(
        _ index: Int, _ what: String, maximum: Double = ValueParser.maximumSeconds,
        allowZero: Bool = false
    ) throws(CommandError) -> Double? {
        guard let text = argument(index) else { return nil }
        return try ValueParser.seconds(text, what, command: name, maximum: maximum, allowZero: allowZero)
    }
}
