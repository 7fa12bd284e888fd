import RelayCLI
import RelayREPL

/// A program's session as `ProgramDriver` sees it: a state machine that takes inputs (commands
/// with their tokens, what the backend reports, timers) at a loop time and returns the actions
/// to perform, in order. It does no I/O.
///
/// Both relay programs' sessions conform: `CentralSession` and `PeripheralSession`. What the
/// driver feeds and performs itself is one case of each (`ProgramInput`, `ProgramAction`).
public protocol ProgramSession {
    associatedtype Command
    /// The program's named timers (each armed at most once at a time).
    associatedtype Timer: Hashable
    associatedtype Event: ProgramEvent
    associatedtype Problem: CustomStringConvertible
    associatedtype Input: ProgramInputs where Input.Command == Command, Input.Timer == Timer
    associatedtype Action: ProgramActions where Action.Event == Event, Action.Timer == Timer, Action.Problem == Problem
    /// What the session is made from (the program's options).
    associatedtype Settings

    init(settings: Settings)

    /// Handles one input at loop time `now` (monotonic seconds); the actions come in order.
    mutating func handle(_ input: Input, at now: Double) -> [Action]

    /// When the session must hear `.tick` next (delivery, stalled messages, trace, text lines).
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

/// A program's own part of its driver: how it performs its session's calls on bluetoothd (the
/// driver performs the shared actions, `ProgramAction`, itself) and how it lets go of the bus.
public protocol ActionPerformer<Action>: AnyObject {
    associatedtype Action
    /// Performs one of the program's own actions (never a shared one).
    func perform(_ action: Action)
    /// Quitting, after the session heard `quitting`: release the bus (and the link), then call `done`.
    func shutdown(then done: @escaping () -> Void)
}
