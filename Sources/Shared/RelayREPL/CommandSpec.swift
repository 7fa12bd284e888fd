/// How a command takes its arguments.
public enum ArgumentShape: Sendable, Equatable {
    /// Whitespace-separated words (double quotes and backslash escapes group them);
    /// between `min` and `max` of them (`max` nil: no limit).
    case words(min: Int, max: Int?)
    /// Everything after the command name as one argument, taken literally
    /// (`send hello  world` gives `hello  world`), unless it starts with a double
    /// quote: then it must be exactly one quoted string (`send "  x\n"`), with escapes.
    /// `required`: an empty rest is an error.
    case restOfLine(required: Bool)

    /// No arguments at all.
    public static let none = ArgumentShape.words(min: 0, max: 0)
}

/// What tab completion offers for a command's arguments.
public enum ArgumentCompletion {
    /// Nothing.
    case none
    /// A fixed list of words (e.g. `stop` for `scan`, event names for `wait`).
    case words([String])
    /// Words computed when TAB is pressed (e.g. discovered device indexes).
    case dynamic(() -> [String])
    /// File names (readline's file-name completion), e.g. for `send-file`.
    case paths
}

/// The outcome a command handler returns.
public enum CommandOutcome: Sendable, Equatable {
    /// Done and succeeded.
    case success
    /// Done and failed; the message is printed as `error: <message>`.
    case failure(String)
    /// Still running: the handler (or something it started) must later call
    /// ``CommandContext/succeed()`` or ``CommandContext/fail(_:)``. Until then the
    /// REPL reads no further command.
    case pending
}

/// A command's handler. Throwing ``CommandError`` (or any error) fails the command
/// with the error's description.
public typealias CommandHandler = (CommandContext) throws -> CommandOutcome

/// One command: its name, help, argument shape and handler.
public struct CommandSpec {
    /// What the user types (`send`, `send-file`).
    public let name: String
    /// Argument synopsis for help and usage errors (`TEXT`, `[N]`, `N|ADDRESS`).
    public let synopsis: String
    /// One line for the `help` list.
    public let summary: String
    /// Extra text for `help NAME` (may be empty; several lines allowed).
    public let details: String
    /// How arguments are split and counted.
    public let shape: ArgumentShape
    /// What TAB offers after the command name.
    public let completion: ArgumentCompletion
    /// When true, starting this command does not move the `wait` mark (see ``EventJournal``);
    /// use it for commands that only show things (`status`, `list`).
    public let isTransparentToWait: Bool
    /// Runs the command.
    public let handler: CommandHandler

    /// Describes a command.
    public init(
        _ name: String,
        synopsis: String = "",
        summary: String,
        details: String = "",
        shape: ArgumentShape = .none,
        completion: ArgumentCompletion = .none,
        isTransparentToWait: Bool = false,
        handler: @escaping CommandHandler
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        self.shape = shape
        self.completion = completion
        self.isTransparentToWait = isTransparentToWait
        self.handler = handler
    }

    /// `name synopsis`, e.g. `send TEXT`.
    public var usage: String {
        synopsis.isEmpty ? name : name + " " + synopsis
    }
}
