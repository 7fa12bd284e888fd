import RelayCLI

/// What every program's session asks for alike, performed by `ProgramDriver` itself (a
/// performer sees only its program's calls on bluetoothd): an event, a line, a command's end,
/// a message to save and report, a file's part file, a timer.
public enum ProgramAction<Event, Timer, Problem> {
    /// Print and record an event.
    case report(Event)
    /// Print an informational line (not an event).
    case note(String)
    /// The command is finished: done (nil), or failed with the problem (its text made at the edge).
    case finish(CommandToken, Problem?)
    /// A complete message: save it into `--save-dir` (if set), then report it (and a problem, if any).
    case deliver(MessageArrival)
    /// A file on its way in, with `--save-dir`: open, extend or remove its part file.
    case file(IncomingFileStep)
    /// (Re)arm `timer` to feed `ProgramInput.timerFired(timer)` after `after` seconds.
    case startTimer(Timer, after: Double)
    case cancelTimer(Timer)
}

extension ProgramAction: Equatable where Event: Equatable, Timer: Equatable, Problem: Equatable {}
extension ProgramAction: Sendable where Event: Sendable, Timer: Sendable, Problem: Sendable {}

/// A program's events as the driver makes some of them: a complete message, a save that failed.
public protocol ProgramEvent: ReportableEvent {
    /// The event of a transfer (a complete message, progress, ...).
    static func transfer(_ event: TransferEvent) -> Self
    /// The event of a message or file that could not be saved into `--save-dir`.
    static func saveFailed(_ problem: String) -> Self
}

/// A session's action type: its own cases (its calls on bluetoothd) and one case for the shared
/// ones, `program(_:)`, which the driver performs. The shared ones are then named alike on both
/// programs: `.report(_:)`, `.note(_:)`, `.finish(_:_:)`, `.deliver(_:)`, `.file(_:)`,
/// `.startTimer(_:after:)`, `.cancelTimer(_:)`.
public protocol ProgramActions: ReceivingActions {
    associatedtype Event: ProgramEvent
    associatedtype Timer
    associatedtype Problem
    /// The action that carries a shared one (an enum case of that name).
    static func program(_ action: ProgramAction<Event, Timer, Problem>) -> Self
    /// The shared action this is, if it is one.
    var programAction: ProgramAction<Event, Timer, Problem>? { get }
}

extension ProgramActions {
    public static func report(_ event: Event) -> Self { program(.report(event)) }
    public static func note(_ line: String) -> Self { program(.note(line)) }
    public static func finish(_ token: CommandToken, _ problem: Problem?) -> Self { program(.finish(token, problem)) }
    public static func deliver(_ arrival: MessageArrival) -> Self { program(.deliver(arrival)) }
    public static func file(_ step: IncomingFileStep) -> Self { program(.file(step)) }
    public static func startTimer(_ timer: Timer, after seconds: Double) -> Self {
        program(.startTimer(timer, after: seconds))
    }
    public static func cancelTimer(_ timer: Timer) -> Self { program(.cancelTimer(timer)) }
    /// A transfer event, reported (what `InboundReports` makes for both programs).
    public static func transfer(_ event: TransferEvent) -> Self { report(.transfer(event)) }
}
