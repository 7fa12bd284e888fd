import RelayCLI
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The command loop both programs run: reads commands (readline on a terminal, plain
/// lines from a pipe or file), runs them one at a time on the event loop, and exits
/// with a status.
///
/// Usage:
/// ```swift
/// let loop = EventLoop()
/// let console = Console(format: json ? .json : .human)
/// var config = REPLConfiguration(programName: "relay-peripheral")
/// config.eventNames = ["connected", "counter", "error"]
/// let repl = REPL(configuration: config, loop: loop, console: console)
/// repl.add(CommandSpec("start", summary: "Register and advertise.") { context in ... .success })
/// repl.endOfInputHook = { done in driver.whenIdle(done) }
/// repl.shutdownHook = { done in driver.shutdown(done) }
/// exit(repl.run())
/// ```
///
/// - A command runs until its handler returns `.success`/`.failure`, or (when it returns
///   `.pending`) until it calls ``CommandContext/succeed()``/``CommandContext/fail(_:)``.
///   The next command is read only then; the event loop keeps running meanwhile.
/// - Blank lines and lines starting with `#` are ignored.
/// - Built in: `wait EVENT [SECONDS]`, `sleep SECONDS`, `help [COMMAND]`, `quit`
///   (listed after the program's commands; a program command with the same name wins).
/// - End of input or `quit`: the end-of-input hook runs (e.g. pending sends finish),
///   then the shutdown hook, then ``run()`` returns 0 if every command succeeded, else 1.
///   Interactive sessions return 0 (typos at a prompt are not failures).
/// - Interactive, Ctrl-C interrupts a running command (it fails with "interrupted"); at the
///   prompt it clears the line; during the end-of-input wait it skips the wait.
///   Non-interactive, Ctrl-C stops the program: the running command is interrupted, the
///   shutdown hook runs, status 130. During the shutdown hook, Ctrl-C exits at once.
/// - SIGTERM or SIGHUP: the running command is interrupted, the shutdown hook runs, and
///   the status is as at end of input (0 if every command so far succeeded). A second
///   SIGTERM exits at once.
public final class REPL {
    /// The loop everything runs on.
    public let loop: EventLoop
    /// Where everything is printed.
    public let console: Console
    /// The events seen, for `wait` (the console's events are recorded automatically).
    public let journal = EventJournal()
    /// The settings.
    public let configuration: REPLConfiguration
    /// Whether input comes from a terminal through readline.
    public let isInteractive: Bool
    /// Runs at end of input (or `quit`) before shutting down; call `done` when pending
    /// work (e.g. sends) has finished. Ctrl-C skips the wait.
    public var endOfInputHook: ((_ done: @escaping () -> Void) -> Void)?
    /// Runs once before ``run()`` returns (unregister from BlueZ, ...); call `done` when
    /// finished. Bounded by ``REPLConfiguration/shutdownTimeout``.
    public var shutdownHook: ((_ done: @escaping () -> Void) -> Void)?
    /// The interactive prompt; set it whenever the state shown in it changes.
    public var prompt: String {
        didSet { editor?.prompt = prompt }
    }
    /// How many commands failed so far (unknown commands and refused lines included).
    public private(set) var failedCommands = 0
    /// How many commands were run so far (failed ones included).
    public private(set) var commandsRun = 0

    var programCommands = CommandTable()
    var builtins: [CommandSpec] = []
    private var editor: ReadlineEditor?
    private var splitter: LineSplitter
    /// Lines read but not run yet: `queue[queueHead...]`.
    private var queue: [InputLine] = []
    private var queueHead = 0
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)
    private var inputToken: EventLoop.Token?
    private var endOfInput = false
    private var running: CommandContext?
    private var phase = Phase.reading
    private var exitStatus: Int32?
    private var signals: SignalWatcher?
    private var pumpScheduled = false

    private enum Phase {
        case reading, draining, shuttingDown, finished
    }

    /// A REPL over `loop` printing to `console`; nothing is read until ``run()``.
    public init(configuration: REPLConfiguration, loop: EventLoop, console: Console, prompt: String? = nil) {
        self.configuration = configuration
        self.loop = loop
        self.console = console
        self.prompt = prompt ?? configuration.programName + "> "
        self.splitter = LineSplitter(maximumLength: configuration.maximumLineLength)
        let fd = configuration.inputFD
        self.isInteractive = configuration.interactive ?? (isatty(fd) == 1 && isatty(1) == 1)
        let journal = self.journal
        console.addObserver { event in journal.record(event.name) }
        builtins = makeBuiltins()
    }

    /// Adds a program command (shown in `help` in the order added, before the built-ins).
    public func add(_ spec: CommandSpec) {
        programCommands.add(spec)
        mergedCommands = nil
    }

    /// All commands: the program's, then the built-ins it did not replace.
    public var commands: CommandTable {
        if let mergedCommands { return mergedCommands }
        var table = programCommands
        for spec in builtins where table.command(named: spec.name) == nil { table.add(spec) }
        mergedCommands = table
        return table
    }
    private var mergedCommands: CommandTable?

    /// Reads and runs commands until end of input, `quit`, a signal or ``terminate(status:)``;
    /// returns the exit status.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        var watched = [SIGINT, SIGTERM, SIGHUP]
        if isInteractive { watched.append(SIGWINCH) }
        signals = SignalWatcher(loop: loop, signals: watched) { [unowned self] number in
            self.handleSignal(number)
        }
        if isInteractive { startEditor() } else { startReading() }
        loop.run(until: { [unowned self] in self.phase == .finished })
        signals?.stop()
        signals = nil
        editor?.close()
        editor = nil
        console.editor = nil
        if let inputToken { loop.cancel(inputToken) }
        inputToken = nil
        return exitStatus ?? 0
    }

    /// Ends the session from program code (e.g. a fatal error): interrupts the running
    /// command, runs the shutdown hook, and makes ``run()`` return `status`.
    public func terminate(status: Int32) {
        exitStatus = status
        running?.cancel()
        shutDown()
    }

    /// Counts a failure that came after its command completed (a message not delivered): a
    /// scripted run then ends with status 1.
    public func noteFailure() {
        failedCommands += 1
    }

    /// The status for a normal end: scripted runs report whether everything succeeded.
    private var normalStatus: Int32 {
        if isInteractive { return 0 }
        return failedCommands == 0 ? 0 : 1
    }

    // MARK: Input

    private func startReading() {
        let fd = configuration.inputFD
        inputToken = loop.watch(fd: fd, for: .readable) { [unowned self] _ in self.readInput() }
    }

    private func readInput() {
        let count = read(configuration.inputFD, &readBuffer, readBuffer.count)
        if count > 0 {
            // Read no more until these lines have run: input is consumed at the pace of the commands.
            if let inputToken { loop.update(inputToken, interest: []) }
            queue += splitter.feed(readBuffer[0..<count])
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            if count < 0 {
                console.commandFailed("cannot read input: \(String(cString: strerror(errno)))", command: nil, line: nil)
            }
            endOfInput = true
            queue += splitter.finish()
            if let inputToken { loop.cancel(inputToken) }
            inputToken = nil
        }
        pump()
    }

    private func startEditor() {
        let history: HistoryFile?
        if let path = configuration.historyPath {
            history = HistoryFile(path: path, limit: configuration.historyLimit)
        } else {
            history = HistoryFile.standard(
                programName: configuration.programName, limit: configuration.historyLimit,
                environment: processEnvironment())
        }
        let editor = ReadlineEditor(
            programName: configuration.programName, prompt: prompt, history: history,
            inputFD: configuration.inputFD, outputFD: configuration.terminalOutputFD)
        editor.completer = { [unowned self] before, word in
            self.commands.completions(lineBeforeWord: before, word: word)
        }
        editor.onLine = { [unowned self] bytes in self.editorDelivered(bytes) }
        self.editor = editor
        console.editor = editor
        inputToken = loop.watch(fd: configuration.inputFD, for: []) { [unowned self] ready in
            if ready.contains(.readable) {
                self.editor?.readAvailable()
            } else {
                self.editorDelivered(nil)  // the terminal went away
            }
        }
        resumeEditing()
    }

    private func editorDelivered(_ bytes: [UInt8]?) {
        if let inputToken { loop.update(inputToken, interest: []) }
        guard let bytes else {
            endOfInput = true
            loop.post { [unowned self] in self.pump() }  // outside readline's callback
            return
        }
        let content = LineValidator.validate(bytes, maximumLength: configuration.maximumLineLength)
        if case .success(let text) = content { editor?.remember(text) }
        queue.append(InputLine(number: 0, content: content))
        loop.post { [unowned self] in self.pump() }
    }

    private func resumeEditing() {
        guard phase == .reading, running == nil, !endOfInput, let editor else { return }
        editor.resume()
        if let inputToken { loop.update(inputToken, interest: .readable) }
    }

    // MARK: Running commands

    /// Runs queued lines while nothing is pending; then reads more, or ends.
    private func pump() {
        while phase == .reading, running == nil, queueHead < queue.count {
            let line = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            execute(line)
        }
        guard phase == .reading, running == nil else { return }
        if endOfInput {
            beginEnd()
        } else if isInteractive {
            resumeEditing()
        } else if let inputToken {
            loop.update(inputToken, interest: .readable)
        }
    }

    private func execute(_ input: InputLine) {
        let lineNumber = isInteractive ? nil : input.number
        let text: String
        switch input.content {
        case .failure(let error):
            recordFailure(error.message, command: nil, line: lineNumber)
            return
        case .success(let value):
            text = value
        }
        let (name, _) = CommandLineSplitter.head(of: text)
        if name.isEmpty || name.hasPrefix("#") { return }
        if configuration.showsCommands, !isInteractive { console.print(prompt + text) }
        let table = commands
        let invocation: CommandTable.Invocation
        do {
            invocation = try table.parse(text)
        } catch {
            recordFailure(error.message, command: name, line: lineNumber)
            return
        }
        commandsRun += 1
        if !invocation.spec.isTransparentToWait { journal.markCommandStart() }
        let context = CommandContext(
            name: name, arguments: invocation.arguments, line: text, console: console, loop: loop
        ) { [unowned self] outcome in
            self.commandFinished(outcome, command: name, line: lineNumber)
        }
        let outcome: CommandOutcome
        do {
            outcome = try invocation.spec.handler(context)
        } catch let error as CommandError {
            outcome = .failure(error.message)
        } catch {
            outcome = .failure("\(name): \(error)")
        }
        if outcome == .pending {
            if !context.isFinished { running = context }
        } else {
            context.finish(outcome)
        }
    }

    private func commandFinished(_ outcome: CommandOutcome, command: String, line: Int?) {
        if case .failure(let message) = outcome {
            recordFailure(message, command: command, line: line)
        }
        if running != nil {
            running = nil
            schedulePump()
        }
    }

    private func recordFailure(_ message: String, command: String?, line: Int?) {
        failedCommands += 1
        let located = (line.map { "line \($0): " } ?? "") + message
        console.commandFailed(console.format == .json ? message : located, command: command, line: line)
    }

    private func schedulePump() {
        guard !pumpScheduled else { return }
        pumpScheduled = true
        loop.post { [unowned self] in
            self.pumpScheduled = false
            self.pump()
        }
    }

    /// `quit`: stop reading; finish like at end of input.
    func requestQuit() {
        endOfInput = true
        queue.removeAll()
        queueHead = 0
        if let inputToken { loop.update(inputToken, interest: []) }
    }

    // MARK: Ending

    private func beginEnd() {
        guard phase == .reading else { return }
        phase = .draining
        editor?.suspend()
        guard let hook = endOfInputHook else {
            shutDown()
            return
        }
        hook { [weak self] in
            self?.loop.post { self?.shutDown() }
        }
    }

    private func shutDown() {
        guard phase == .reading || phase == .draining else { return }
        phase = .shuttingDown
        editor?.abandonLine()
        if let inputToken { loop.cancel(inputToken) }
        inputToken = nil
        if exitStatus == nil { exitStatus = normalStatus }
        guard let hook = shutdownHook else {
            phase = .finished
            return
        }
        var done = false
        let timer = loop.schedule(after: configuration.shutdownTimeout) { [weak self] in
            guard !done else { return }
            done = true
            self?.phase = .finished
        }
        hook { [weak self] in
            guard !done else { return }
            done = true
            self?.loop.cancel(timer)
            self?.phase = .finished
        }
    }

    private func handleSignal(_ number: Int32) {
        switch number {
        case SIGWINCH:
            editor?.resize()
        case SIGINT:
            if phase == .shuttingDown {
                phase = .finished
            } else if !isInteractive {
                terminate(status: 130)
            } else if let running {
                Console.writeAll(fd: configuration.terminalOutputFD, "\n")  // after the terminal's "^C"
                running.cancel()
            } else if phase == .draining {
                shutDown()
            } else {
                editor?.interrupt()
            }
        default:  // SIGTERM, SIGHUP
            if phase == .shuttingDown {
                phase = .finished
            } else {
                running?.cancel()
                shutDown()
            }
        }
    }
}
