#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Settings for a ``REPL``, chosen by the program at start-up.
public struct REPLConfiguration {
    /// The program name: names the history file and readline's `$if` conditionals.
    public var programName: String
    /// Interactive (readline) or scripted input; nil picks interactive when both
    /// stdin and stdout are terminals.
    public var interactive: Bool?
    /// The event names `wait` accepts (a typo then fails at once instead of after the
    /// time-out) and TAB offers. Empty: any name is accepted.
    public var eventNames: [String] = []
    /// How long `wait EVENT` waits when no SECONDS are given.
    public var defaultWaitSeconds: Double = 30
    /// Input lines longer than this many bytes are refused.
    public var maximumLineLength = LineValidator.defaultMaximumLength
    /// How many interactive history lines are kept between runs.
    public var historyLimit = 1000
    /// Where commands are read from (standard input by default).
    public var inputFD: Int32 = 0
    /// The terminal readline draws on in interactive mode (standard output by default;
    /// the ``Console`` has its own output, normally the same).
    public var terminalOutputFD: Int32 = 1
    /// The history file; nil uses `$XDG_STATE_HOME/relay/<program>_history` or
    /// `~/.local/state/relay/<program>_history`.
    public var historyPath: String?
    /// The longest the shutdown hook may take before the REPL exits anyway.
    public var shutdownTimeout: Double = 5
    /// Scripted input shows each command after the prompt, as a terminal shows it typed
    /// (`RELAY_SHOW_COMMANDS=1`: the docs' transcripts are recorded so, scripts/transcripts.py).
    public var showsCommands = false

    /// Defaults for `programName`; `showsCommands` from the environment.
    public init(programName: String) {
        self.programName = programName
        self.showsCommands = getenv("RELAY_SHOW_COMMANDS").map { String(cString: $0) == "1" } ?? false
    }
}
