import Glibc
import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

/// Drives the readline mode for real through a pseudo-terminal: the test types on the
/// master side like a user and reads the screen output from it.
final class InteractiveREPLTests: XCTestCase {
    /// A pseudo-terminal pair (80x24).
    private struct PseudoTerminal {
        let master: Int32
        let slave: Int32

        init() throws {
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard master >= 0 else { throw XCTSkip("no pseudo-terminals here (/dev/ptmx: errno \(errno))") }
            var unlock: Int32 = 0
            _ = ioctl(master, UInt(0x4004_5431), &unlock)  // TIOCSPTLCK
            var number: UInt32 = 0
            _ = ioctl(master, UInt(0x8004_5430), &number)  // TIOCGPTN
            slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard slave >= 0 else { throw CommandError("cannot open /dev/pts/\(number)") }
            var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        }

        func close() {
            Glibc.close(slave)
            Glibc.close(master)
        }
    }

    /// Steps run one after the other: each waits until the screen output so far contains
    /// its text (nil: no wait), then types its keys or runs its action.
    private struct Step {
        let after: String?
        let action: () -> Void
    }

    /// Runs `repl` on the loop, feeding `steps` as the screen output on `master` shows their
    /// texts; returns the exit status and the whole screen output.
    private func run(
        _ repl: REPL, loop: EventLoop, master: Int32, steps initial: [Step]
    ) -> (status: Int32, screen: String, stuckAt: String?) {
        var steps = initial
        var screen: [UInt8] = []
        var consumed = 0  // bytes of `screen` already matched by earlier steps
        func advance() {
            while let step = steps.first {
                if let text = step.after {
                    let tail = String(decoding: screen[consumed...], as: UTF8.self)
                    guard let found = tail.range(of: text) else { return }
                    consumed += tail.utf8.distance(from: tail.startIndex, to: found.upperBound)
                }
                steps.removeFirst()
                step.action()
            }
        }
        loop.watch(fd: master, for: .readable) { _ in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { return }
            screen += buffer[0..<count]
            advance()
        }
        let safety = loop.schedule(after: 20) { repl.terminate(status: 99) }
        let status = repl.run()
        loop.cancel(safety)
        return (status, String(decoding: screen, as: UTF8.self), steps.first.map { $0.after ?? "-" })
    }

    func testPromptEditingEventsCompletionHistoryCtrlCAndCtrlD() throws {
        let savedTerm = getenv("TERM").map { String(cString: $0) }
        setenv("TERM", "dumb", 1)  // plain output: no escape sequences to parse
        defer {
            if let savedTerm { setenv("TERM", savedTerm, 1) } else { unsetenv("TERM") }
        }
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        var template = Array("/tmp/relay-history-XXXXXX".utf8CString)
        let historyFD = mkstemp(&template)
        close(historyFD)
        let historyPath = String(cString: template)
        defer { unlink(historyPath) }

        let loop = EventLoop()
        let slave = terminal.slave
        let console = Console(format: .human, output: { Console.writeAll(fd: slave, $0) }, clock: { "T" })
        var config = REPLConfiguration(programName: "relay-test")
        config.interactive = true
        config.inputFD = slave
        config.terminalOutputFD = slave
        config.historyPath = historyPath
        let repl = REPL(configuration: config, loop: loop, console: console, prompt: "test> ")
        var log: [String] = []
        repl.add(
            CommandSpec("send", synopsis: "TEXT", summary: "Log.", shape: .restOfLine(required: true)) { context in
                log.append("send:" + context.arguments[0])
                return .success
            })
        repl.add(
            CommandSpec("status", summary: "Log.") { _ in
                log.append("status")
                return .success
            })

        let master = terminal.master
        func type(_ text: String) { Console.writeAll(fd: master, text) }
        let steps: [Step] = [
            Step(after: "test> ") { type("send hel") },
            Step(after: "send hel") { console.report(SimpleEvent("tick", human: "TICK-EVENT")) },
            Step(after: "TICK-EVENT") {},
            Step(after: "send hel") { type("lo\r") },
            Step(after: "test> ") { type("sned\r") },
            Step(after: "did you mean 'send'?") {},
            Step(after: "test> ") { type("sta\t") },
            Step(after: "status") { type("\r") },
            Step(after: "test> ") { type("abc") },
            Step(after: "abc") { raise(SIGINT) },
            Step(after: "^C") {},
            Step(after: "test> ") { repl.prompt = "new> " },
            Step(after: "new> ") { type("\u{04}") },
        ]
        let (status, text, stuckAt) = run(repl, loop: loop, master: master, steps: steps)
        XCTAssertEqual(status, 0, "screen: \(text.debugDescription)")
        XCTAssertNil(stuckAt, "stuck waiting; screen: \(text.debugDescription)")
        XCTAssertEqual(log, ["send:hello", "status"])
        let event = try XCTUnwrap(text.range(of: "TICK-EVENT"))
        XCTAssertNotNil(
            text.range(of: "send hel", range: event.upperBound..<text.endIndex),
            "the line being typed was not redrawn after the event")
        let saved = (try? String(contentsOfFile: historyPath, encoding: .utf8)) ?? ""
        XCTAssertEqual(saved.split(separator: "\n"), ["send hello", "sned", "status"])
    }

    private struct LiveEvent: ReportableEvent {
        let name = "progress"
        let fields: [(String, JSONValue)] = []
        let humanDescription: String
        let liveLine: LiveLine?
    }

    /// A transfer's live line sits above the line being typed, is rewritten in place, and gives
    /// way to its last event: through real readline on a pseudo-terminal.
    func testALiveLineIsRewrittenAboveTheLineBeingTyped() throws {
        let savedTerm = getenv("TERM").map { String(cString: $0) }
        setenv("TERM", "dumb", 1)
        defer {
            if let savedTerm { setenv("TERM", savedTerm, 1) } else { unsetenv("TERM") }
        }
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let loop = EventLoop()
        let slave = terminal.slave
        let console = Console(format: .human, output: { Console.writeAll(fd: slave, $0) }, clock: { "T" })
        var config = REPLConfiguration(programName: "relay-test")
        config.interactive = true
        config.inputFD = slave
        config.terminalOutputFD = slave
        let repl = REPL(configuration: config, loop: loop, console: console, prompt: "test> ")
        var log: [String] = []
        repl.add(
            CommandSpec("send", synopsis: "TEXT", summary: "Log.", shape: .restOfLine(required: true)) { context in
                log.append("send:" + context.arguments[0])
                return .success
            })
        func live(_ text: String) -> LiveEvent {
            LiveEvent(humanDescription: text, liveLine: .update(key: "out-1", text: text))
        }
        let master = terminal.master
        func type(_ text: String) { Console.writeAll(fd: master, text) }
        let steps: [Step] = [
            Step(after: "test> ") { type("send hel") },
            Step(after: "send hel") { console.report(live("sending a.jpg: 10 %")) },
            Step(after: "sending a.jpg: 10 %") { console.report(live("sending a.jpg: 20 %")) },
            Step(after: "sending a.jpg: 20 %") {
                console.report(LiveEvent(humanDescription: "delivered message 1", liveLine: .end(key: "out-1")))
            },
            Step(after: "delivered message 1") { type("lo\r") },
            Step(after: "test> ") { type("\u{04}") },
        ]
        let (status, text, stuckAt) = run(repl, loop: loop, master: master, steps: steps)
        XCTAssertEqual(status, 0, "screen: \(text.debugDescription)")
        XCTAssertNil(stuckAt, "stuck waiting; screen: \(text.debugDescription)")
        XCTAssertEqual(log, ["send:hello"])
        let clear = "\u{1B}[1A\r\u{1B}[J"
        let first = try XCTUnwrap(text.range(of: "sending a.jpg: 10 %"))
        let second = try XCTUnwrap(
            text.range(of: clear + "sending a.jpg: 20 %", range: first.upperBound..<text.endIndex))
        XCTAssertNotNil(
            text.range(of: "send hel", range: second.upperBound..<text.endIndex), "the typed line is kept below it")
        let end = try XCTUnwrap(
            text.range(of: clear + "delivered message 1\r\n", range: second.upperBound..<text.endIndex))
        XCTAssertNil(text.range(of: "sending a.jpg", range: end.upperBound..<text.endIndex), "the live line is gone")
    }
}
