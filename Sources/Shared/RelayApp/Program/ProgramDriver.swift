import RelayCLI
import RelayREPL
import RelayRuntime

/// The one driver of both programs: it feeds the session its inputs one at a time and performs
/// the actions it returns. It owns what both programs do the same way: the input queue, the
/// command tokens and their REPL commands, the program's timers and the one deadline timer,
/// received messages and files (`--save-dir`), failure counting, the prompt and waiting for
/// quiescence. What only one program does (its calls on bluetoothd) is its `ActionPerformer`.
///
/// Ownership: the driver owns the performer, the performer owns the backend, and the backend
/// reports to the driver (`feed(_:)`) through an unowned reference. All three live as long as
/// the program.
public final class ProgramDriver<Session: ProgramSession> {
    public let loop: EventLoop
    public let console: Console
    public private(set) var session: Session
    /// The program's own part: set once, before the first input (without it, actions are not performed).
    public var performer: (any ActionPerformer<Session.Action>)?
    /// Called with every event reported, after it is printed.
    public var onReport: ((Session.Event) -> Void)?
    /// Called with the new prompt whenever it changes.
    public var onPromptChange: ((String) -> Void)?
    /// Called once per message that failed (a scripted run then ends with status 1).
    public var onDeliveryFailure: (() -> Void)?

    private var inputs: InputQueue<Session.Input>!
    private var commands: [CommandToken: CommandContext] = [:]
    private var nextToken: CommandToken = 1
    private var timers: [Session.Timer: EventLoop.Token] = [:]
    private var deadlineTimer: EventLoop.Token?
    private var deadlineTimerAt: Double?
    private var idleWaiters: [() -> Void] = []
    private var failuresSeen = 0
    private var lastPrompt: String
    /// The part files of files being received (`--save-dir`).
    private let incomingFiles = IncomingFiles()

    public init(session: Session, loop: EventLoop, console: Console) {
        self.session = session
        self.loop = loop
        self.console = console
        self.lastPrompt = session.prompt
        inputs = InputQueue(
            handle: { [unowned self] input in
                assert(self.performer != nil, "the driver's performer is set before its first input")
                for action in self.session.handle(input, at: self.loop.now) {
                    if let shared = action.programAction {
                        self.perform(shared)
                    } else {
                        self.performer?.perform(action)
                    }
                }
            },
            afterBatch: { [unowned self] in self.settle() })
    }

    /// A driver for a new session with `settings`; set its performer before the first input.
    public convenience init(settings: Session.Settings, loop: EventLoop, console: Console) {
        self.init(session: Session(settings: settings), loop: loop, console: console)
    }

    /// The prompt the session's state makes now.
    public var prompt: String { session.prompt }

    // MARK: Inputs and commands

    /// Feeds an input; inputs produced while handling one wait their turn.
    public func feed(_ input: Session.Input) {
        inputs.feed(input)
    }

    /// Runs one of the program's commands: the REPL's command completes when the session
    /// finishes it (often at once).
    public func run(_ command: Session.Command, _ context: CommandContext) -> CommandOutcome {
        let token = nextToken
        nextToken = token.next
        commands[token] = context
        context.onCancel { [weak self] in self?.commands[token] = nil }
        feed(.command(command, token: token))
        return .pending
    }

    // MARK: The shared actions

    /// Performs what every session asks for alike.
    private func perform(_ action: ProgramAction<Session.Event, Session.Timer, Session.Problem>) {
        switch action {
        case .report(let event):
            console.report(event)
            onReport?(event)
        case .note(let line): console.print(line)
        case .finish(let token, let problem): finish(token, problem)
        case .deliver(let arrival): deliver(arrival)
        case .file(let step): receiveFile(step)
        case .startTimer(let timer, let seconds): startTimer(timer, after: seconds)
        case .cancelTimer(let timer): cancelTimer(timer)
        }
    }

    /// Completes the command `token` (a session's finish action): done, or failed with
    /// `problem`, whose text is made here.
    private func finish(_ token: CommandToken, _ problem: Session.Problem?) {
        guard let context = commands.removeValue(forKey: token) else { return }
        if let problem { context.fail(problem.description) } else { context.succeed() }
    }

    // MARK: Timers

    /// (Re)arms `timer` to feed `.timerFired(timer)` after `seconds`.
    private func startTimer(_ timer: Session.Timer, after seconds: Double) {
        cancelTimer(timer)
        timers[timer] = loop.schedule(after: seconds) { [weak self] in
            guard let self else { return }
            self.timers[timer] = nil
            self.feed(.timerFired(timer))
        }
    }

    private func cancelTimer(_ timer: Session.Timer) {
        if let token = timers.removeValue(forKey: timer) { loop.cancel(token) }
    }

    /// Keeps one timer at the session's next deadline.
    private func armDeadlineTimer() {
        let deadline = session.nextDeadline
        guard deadline != deadlineTimerAt else { return }
        if let deadlineTimer { loop.cancel(deadlineTimer) }
        deadlineTimer = nil
        deadlineTimerAt = deadline
        guard let deadline else { return }
        deadlineTimer = loop.schedule(after: max(0, deadline - loop.now)) { [weak self] in
            guard let self else { return }
            self.deadlineTimer = nil
            self.deadlineTimerAt = nil
            self.feed(.tick)
        }
    }

    // MARK: Messages received

    /// A complete message: saves it into `--save-dir` (if set), reports it (and a problem, if
    /// any) and tells the session whether it was saved.
    private func deliver(_ arrival: MessageArrival) {
        let (report, problem) = arrival.perform(files: incomingFiles)
        if let problem { console.report(Session.Event.saveFailed(problem)) }
        console.report(Session.Event.transfer(.message(report)))
        if let receipt = arrival.receipt(saved: problem == nil) { feed(.saved(receipt)) }
    }

    /// A file on its way in: opens, extends or removes its part file.
    private func receiveFile(_ step: IncomingFileStep) {
        if let problem = incomingFiles.perform(step) { console.report(Session.Event.saveFailed(problem)) }
    }

    // MARK: After each batch

    private func settle() {
        armDeadlineTimer()
        while failuresSeen < session.failedDeliveries {
            failuresSeen += 1
            onDeliveryFailure?()
        }
        let current = session.prompt
        if current != lastPrompt {
            lastPrompt = current
            onPromptChange?(current)
        }
        if session.isQuiescent, !idleWaiters.isEmpty {
            let waiters = idleWaiters
            idleWaiters.removeAll()
            for waiter in waiters { waiter() }
        }
    }

    // MARK: Ending

    /// Calls `done` once the session is quiescent, plus the session's grace.
    public func whenIdle(_ done: @escaping () -> Void) {
        let grace = Session.quiescenceGrace
        let finish = grace > 0 ? { [loop] in _ = loop.schedule(after: grace, done) } : done
        if session.isQuiescent { return finish() }
        idleWaiters.append(finish)
    }

    /// `quit` or the end of input, after `whenIdle`: the session hears `quitting`, the performer
    /// lets go of the bus, part files of unfinished files go, then `done`.
    public func shutdown(_ done: @escaping () -> Void) {
        feed(.quitting)
        let finish = { [incomingFiles] in
            incomingFiles.discardAll()
            done()
        }
        if let performer { performer.shutdown(then: finish) } else { finish() }
    }
}
