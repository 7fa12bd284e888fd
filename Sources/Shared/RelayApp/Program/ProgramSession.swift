import RelayCLI
import RelayREPL

/// A program's session as `ProgramDriver` sees it: a state machine that takes inputs (commands
/// with their tokens, what the backend reports, timers) at a loop time and returns the actions
/// to perform, in order. It does no I/O.
///
/// Both relay programs' sessions conform: `CentralSession` and `PeripheralSession`.
public protocol ProgramSession {
    associatedtype Input
    associatedtype Action
    associatedtype Command
    /// The program's named timers (each armed at most once at a time).
    associatedtype Timer: Hashable
    associatedtype Event: ReportableEvent
    /// What the session is made from (the program's options).
    associatedtype Settings

    init(settings: Settings)

    /// Handles one input at loop time `now` (monotonic seconds); the actions come in order.
    mutating func handle(_ input: Input, at now: Double) -> [Action]

    /// The input that hands the session `command`; the session answers with a finish action
    /// naming `token`, which the driver turns into `ProgramDriver.finish(_:_:)`.
    static func command(_ command: Command, token: CommandToken) -> Input
    /// The input fed when `timer` fires.
    static func timerFired(_ timer: Timer) -> Input
    /// The input fed when the loop reaches `nextDeadline`.
    static func deadlineReached(at now: Double) -> Input
    /// The input fed when the program quits (after its sends, before the backend lets go of the bus).
    static var quitting: Input { get }
    /// The input that tells the session a message it handed over was saved (or could not be).
    static func saved(_ receipt: SaveReceipt) -> Input
    /// The event that reports a complete message.
    static func received(_ event: TransferEvent) -> Event
    /// The event that reports a message or file that could not be saved into `--save-dir`.
    static func saveFailed(_ problem: String) -> Event

    /// When the session must hear `deadlineReached` next (delivery, stalled messages, trace, text lines).
    var nextDeadline: Double? { get }
    /// The REPL's prompt, from the state it shows.
    var prompt: String { get }
    /// Messages that failed so far (each makes a scripted run end with status 1).
    var failedDeliveries: Int { get }
    /// Whether nothing is queued that ending the input would cut short.
    var isQuiescent: Bool { get }
    /// Once quiescent, how long to wait before ending (time for bluetoothd to put the last values on the air).
    static var quiescenceGrace: Double { get }
}

/// A program's own part of its driver: how it performs its session's actions (on its backend)
/// and how it lets go of the bus. The driver performs the shared actions itself; see
/// `ProgramDriver.deliver(_:)`, `finish(_:_:)` and the timers.
public protocol ActionPerformer<Action>: AnyObject {
    associatedtype Action
    /// Performs one action the session returned.
    func perform(_ action: Action)
    /// Quitting, after the session heard `quitting`: release the bus (and the link), then call `done`.
    func shutdown(then done: @escaping () -> Void)
}
