import RelayREPL

/// What every program's session hears alike, fed by `ProgramDriver` itself: a command with its
/// token, one of the program's named timers, the session's deadline, a save's outcome, quitting.
/// A session's input type carries these as one case (`ProgramInputs`).
public enum ProgramInput<Command, Timer> {
    /// A command typed or piped, identified by `token` for its completion.
    case command(Command, token: CommandToken)
    /// The program's timer fired (armed with `ProgramAction.startTimer`).
    case timerFired(Timer)
    /// The session's `nextDeadline` came (the time is the one `handle(_:at:)` is given, as for
    /// every input).
    case tick
    /// A message handed over with `ProgramAction.deliver` was saved into `--save-dir`, or could not be.
    case saved(SaveReceipt)
    /// The program is quitting (after its sends, before the backend lets go of the bus).
    case quitting
}

extension ProgramInput: Equatable where Command: Equatable, Timer: Equatable {}
extension ProgramInput: Sendable where Command: Sendable, Timer: Sendable {}

/// A session's input type: its own cases (what its backend reports) and one case for the shared
/// ones, `program(_:)`. The shared ones are then named alike on both programs: `.command(_:token:)`,
/// `.timerFired(_:)`, `.tick`, `.saved(_:)`, `.quitting`.
public protocol ProgramInputs {
    associatedtype Command
    associatedtype Timer
    /// The input that carries a shared one (an enum case of that name).
    static func program(_ input: ProgramInput<Command, Timer>) -> Self
}

extension ProgramInputs {
    public static func command(_ command: Command, token: CommandToken) -> Self {
        program(.command(command, token: token))
    }
    public static func timerFired(_ timer: Timer) -> Self { program(.timerFired(timer)) }
    public static var tick: Self { program(.tick) }
    public static func saved(_ receipt: SaveReceipt) -> Self { program(.saved(receipt)) }
    public static var quitting: Self { program(.quitting) }
}
