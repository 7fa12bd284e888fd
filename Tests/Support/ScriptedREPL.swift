import RelayCLI
import RelayREPL
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// A program's REPL as its tests run it: reading `script` from a pipe (not interactive) and
/// printing JSON events with the time `T`, captured as lines.
public final class ScriptedREPL {
    public let loop = EventLoop()
    public let console: Console
    public let repl: REPL
    private let output: Output
    private let input: Int32

    private final class Output {
        var text = ""
    }

    public init(script: String, programName: String, eventNames: [String]) {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe")
        let bytes = Array(script.utf8)
        precondition(write(fds[1], bytes, bytes.count) == bytes.count, "the script fits the pipe")
        close(fds[1])
        input = fds[0]
        let output = Output()
        self.output = output
        console = Console(format: .json, output: { output.text += $0 }, clock: { "T" })
        var configuration = REPLConfiguration(programName: programName)
        configuration.interactive = false
        configuration.inputFD = fds[0]
        configuration.eventNames = eventNames
        repl = REPL(configuration: configuration, loop: loop, console: console)
    }

    deinit { close(input) }

    /// Runs the script to its end (and the program's shutdown): the exit status and every line printed.
    public func run() -> (status: Int32, lines: [String]) {
        let status = repl.run()
        return (status, output.text.split(separator: "\n").map(String.init))
    }
}
