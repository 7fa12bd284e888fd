import Glibc
import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

/// Runs a REPL in scripted mode over a real pipe, with a few test commands, and
/// captures what it prints and what the commands did.
final class ScriptHarness {
    let loop = EventLoop()
    let console: Console
    let repl: REPL
    private(set) var output = ""
    var log: [String] = []
    private var readFD: Int32 = -1

    init(eventNames: [String] = [], format: Console.Format = .human) {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        readFD = fds[0]
        writeFD = fds[1]
        var config = REPLConfiguration(programName: "relay-test")
        config.interactive = false
        config.inputFD = readFD
        config.eventNames = eventNames
        final class Box { var text = "" }
        let box = Box()
        console = Console(format: format, output: { box.text += $0 }, clock: { "T" })
        repl = REPL(configuration: config, loop: loop, console: console)
        outputBox = { box.text }
        addCommands()
    }

    private var writeFD: Int32 = -1
    private var outputBox: () -> String = { "" }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    /// Bytes written to the pipe that the REPL has not read yet.
    func bytesWaitingInPipe() -> Int {
        var count: Int32 = 0
        _ = ioctl(readFD, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// Output lines printed so far.
    var lines: [String] {
        outputBox().split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Feeds `chunks` through the pipe as it becomes writable (then closes it) and runs the
    /// REPL to its end; a safety timer ends a hung run with status 99.
    func run(_ chunks: [[UInt8]]) -> Int32 {
        let fd = writeFD
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var pending = chunks
        var offset = 0
        var token: EventLoop.Token?
        token = loop.watch(fd: fd, for: .writable) { [unowned self] _ in
            while let chunk = pending.first {
                let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress! + offset, chunk.count - offset) }
                if written < 0 { return }
                offset += written
                if offset == chunk.count {
                    pending.removeFirst()
                    offset = 0
                    return  // one chunk per turn, so the reader sees partial input
                }
            }
            self.loop.cancel(token!)
            close(fd)
            self.writeFD = -1
        }
        let guardTimer = loop.schedule(after: 30) { [unowned self] in self.repl.terminate(status: 99) }
        let status = repl.run()
        loop.cancel(guardTimer)
        return status
    }

    /// Runs a script given as text.
    func run(script: String) -> Int32 { run([Array(script.utf8)]) }

    private func addCommands() {
        repl.add(
            CommandSpec("ok", summary: "Succeed.") { [unowned self] _ in
                self.log.append("ok")
                return .success
            })
        repl.add(CommandSpec("fail", summary: "Fail.") { _ in .failure("it failed") })
        repl.add(CommandSpec("throw", summary: "Throw.") { _ in throw CommandError("boom") })
        repl.add(
            CommandSpec("send", synopsis: "TEXT", summary: "Log text.", shape: .restOfLine(required: true)) {
                [unowned self] context in
                self.log.append("send:" + context.arguments[0])
                return .success
            })
        repl.add(
            CommandSpec("emit", synopsis: "EVENT", summary: "Report an event.", shape: .words(min: 1, max: 1)) {
                context in
                context.console.report(SimpleEvent(context.arguments[0], human: "event " + context.arguments[0]))
                return .success
            })
        repl.add(
            CommandSpec("later", synopsis: "EVENT SECONDS", summary: "Report later.", shape: .words(min: 2, max: 2)) {
                context in
                let name = context.arguments[0]
                let seconds = try context.seconds(1, "SECONDS") ?? 0
                context.loop.schedule(after: seconds) {
                    context.console.report(SimpleEvent(name, human: "event " + name))
                }
                return .success
            })
        repl.add(
            CommandSpec("connect", summary: "Connect; events arrive before it finishes.") { context in
                context.loop.schedule(after: 0.01) {
                    context.console.report(SimpleEvent("connected", human: "connected"))
                }
                context.loop.schedule(after: 0.02) { context.console.report(SimpleEvent("ready", human: "ready")) }
                context.loop.schedule(after: 0.03) { context.succeed() }
                return .pending
            })
        repl.add(
            CommandSpec("instant", summary: "Pending that finished at once.") { context in
                context.succeed()
                return .pending
            })
        repl.add(
            CommandSpec("hang", summary: "Never finishes.") { [unowned self] context in
                context.onCancel { self.log.append("cancelled") }
                return .pending
            })
        repl.add(
            CommandSpec("fatal", summary: "Terminate with 3.") { [unowned self] _ in
                self.repl.terminate(status: 3)
                return .success
            })
        repl.add(
            CommandSpec("raise", synopsis: "SIGNAL", summary: "Raise a signal later.", shape: .words(min: 1, max: 1)) {
                context in
                let number = Int32(context.arguments[0])!
                context.loop.schedule(after: 0.01) { raise(number) }
                return .success
            })
    }
}
