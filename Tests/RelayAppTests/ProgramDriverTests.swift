import RelayApp
import RelayCLI
import RelayProtocol
import RelayREPL
import RelayRuntime
import RelayTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A session that does what each command says, so that `ProgramDriver` can be tested on its
/// own: what it feeds, what it performs itself and what it hands to the performer.
struct StubSession: ProgramSession {
    enum Command: Equatable, Sendable {
        /// Finish at once (with `problem`: failed).
        case finish(problem: String?)
        /// Finish when the backend answers `.answered` (a call on the performer first).
        case callAndWait(String)
        case startTimer(Double)
        case cancelTimer
        case deliver(MessageArrival)
        /// Count a failed message.
        case failMessage
        /// Keep something queued for `seconds` (until the tick at the deadline).
        case busyFor(Double)
    }
    enum Timer: Hashable, Sendable { case one }
    struct Problem: Equatable, Sendable, CustomStringConvertible {
        var description: String
    }
    enum Event: Equatable, Sendable, ProgramEvent {
        case transfer(TransferEvent)
        case saveFailed(String)
        case said(String)

        var name: String {
            switch self {
            case .transfer(let event): event.name
            case .saveFailed: "error"
            case .said: "said"
            }
        }
        var fields: [(String, JSONValue)] {
            switch self {
            case .transfer(let event): event.fields
            case .saveFailed(let problem), .said(let problem): [("text", .string(problem))]
            }
        }
        var humanDescription: String { name }
    }
    enum Input: Equatable, Sendable, ProgramInputs {
        case program(ProgramInput<Command, Timer>)
        /// The performer's call was answered.
        case answered(CommandToken)
    }
    enum Action: Equatable, Sendable, ProgramActions {
        case program(ProgramAction<Event, Timer, Problem>)
        /// A call on the program's backend.
        case call(String, CommandToken)

        var programAction: ProgramAction<Event, Timer, Problem>? {
            if case .program(let action) = self { return action }
            return nil
        }
    }

    /// Every input, with the loop time it came at.
    var heard: [(Input, Double)] = []
    var failedDeliveries = 0
    var busyUntil: Double?
    var nextDeadline: Double? { busyUntil }
    var prompt: String { "stub [\(failedDeliveries) failed]> " }
    var isQuiescent: Bool { busyUntil == nil }
    static var quiescenceGrace: Double { 0 }

    init(settings: Void) {}

    mutating func handle(_ input: Input, at now: Double) -> [Action] {
        heard.append((input, now))
        switch input {
        case .answered(let token): return [.finish(token, nil), .report(.said("answered"))]
        case .program(.command(let command, let token)):
            switch command {
            case .finish(let problem): return [.finish(token, problem.map(Problem.init))]
            case .callAndWait(let name): return [.call(name, token)]
            case .startTimer(let seconds): return [.startTimer(.one, after: seconds), .finish(token, nil)]
            case .cancelTimer: return [.cancelTimer(.one), .finish(token, nil)]
            case .deliver(let arrival): return [.deliver(arrival), .finish(token, nil)]
            case .failMessage:
                failedDeliveries += 1
                return [.finish(token, nil)]
            case .busyFor(let seconds):
                busyUntil = now + seconds
                return [.finish(token, nil)]
            }
        case .program(.timerFired(.one)): return [.report(.said("timer"))]
        case .program(.tick):
            if let busy = busyUntil, now >= busy { busyUntil = nil }
            return [.note("tick")]
        case .program(.saved(let receipt)): return [.report(.said("saved \(receipt.saved)"))]
        case .program(.quitting): return [.report(.said("quitting"))]
        }
    }
}

/// The stub's backend: it records the calls the performer makes and answers each on the next turn.
final class StubPerformer: ActionPerformer {
    private unowned let driver: ProgramDriver<StubSession>
    var calls: [String] = []
    var shutDown = false

    init(driver: ProgramDriver<StubSession>) { self.driver = driver }

    func perform(_ action: StubSession.Action) {
        guard case .call(let name, let token) = action else {
            return XCTFail("the driver performs the shared actions itself: \(action)")
        }
        calls.append(name)
        driver.loop.post { [driver] in driver.feed(.answered(token)) }
    }

    func shutdown(then done: @escaping () -> Void) {
        shutDown = true
        done()
    }
}

final class ProgramDriverTests: XCTestCase {
    struct Run {
        let status: Int32
        let lines: [String]
        let session: StubSession
        let performer: StubPerformer
        let prompts: [String]
        let failures: Int
    }

    /// Runs `script` through a REPL whose commands are `commands`, as a program's main puts
    /// the driver together.
    func run(_ script: String, _ commands: [String: StubSession.Command]) -> Run {
        let scripted = ScriptedREPL(script: script, programName: "stub", eventNames: ["said", "error", "message"])
        let driver = ProgramDriver<StubSession>(settings: (), loop: scripted.loop, console: scripted.console)
        let repl = scripted.repl
        var prompts: [String] = []
        var failures = 0
        for (name, command) in commands {
            repl.add(CommandSpec(name, summary: name) { [unowned driver] context in driver.run(command, context) })
        }
        driver.onPromptChange = { prompts.append($0) }
        driver.onDeliveryFailure = { [unowned repl] in
            failures += 1
            repl.noteFailure()
        }
        repl.endOfInputHook = { done in driver.whenIdle(done) }
        repl.shutdownHook = { done in driver.shutdown(done) }
        let performer = StubPerformer(driver: driver)
        driver.performer = performer
        let (status, lines) = scripted.run()
        return Run(
            status: status, lines: lines, session: driver.session, performer: performer, prompts: prompts,
            failures: failures)
    }

    func said(_ run: Run) -> [String] {
        run.lines.compactMap { line in
            guard line.hasPrefix(#"{"event":"said""#), let range = line.range(of: #""text":""#) else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    func testACommandEndsWhenItsSessionFinishesItAndAProblemIsItsErrorLine() {
        let result = run(
            "ok\nbad\ncall\nok\n",
            ["ok": .finish(problem: nil), "bad": .finish(problem: "it went wrong"), "call": .callAndWait("poke")])
        XCTAssertEqual(result.status, 1, "a failed command makes a script's status 1")
        XCTAssertTrue(result.lines.contains { $0.contains("it went wrong") }, "\(result.lines)")
        XCTAssertEqual(result.performer.calls, ["poke"], "the session's own action went to the performer")
        XCTAssertEqual(said(result), ["answered", "quitting"], "the call's answer ended it before the next line")
        let commands = result.session.heard.compactMap { input -> String? in
            if case .program(.command(let command, _)) = input.0 { return "\(command)" }
            return nil
        }
        XCTAssertEqual(commands.count, 4)
        XCTAssertTrue(result.performer.shutDown, "quitting let go of the bus")
        guard case .program(.quitting)? = result.session.heard.last?.0 else {
            return XCTFail("quitting is the last input: \(result.session.heard)")
        }
    }

    func testATimerFeedsItsInputOnceAndACancelledOneNever() {
        let fired = run("start\nwait said 2\n", ["start": .startTimer(0.05)])
        XCTAssertEqual(said(fired), ["timer", "quitting"])
        let cancelled = run(
            "start\ncancel\nbusy\n", ["start": .startTimer(0.05), "cancel": .cancelTimer, "busy": .busyFor(0.1)])
        XCTAssertFalse(said(cancelled).contains("timer"))
        let restarted = run(
            "start\nstart\nwait said 2\n", ["start": .startTimer(0.05)])
        XCTAssertEqual(said(restarted).filter { $0 == "timer" }.count, 1, "starting it again replaces it")
    }

    func testTheDeadlineIsFedAsATickAndTheEndOfInputWaitsForQuiescence() {
        let result = run("busy\n", ["busy": .busyFor(0.2)])
        let ticks = result.session.heard.compactMap { input -> Double? in
            if case .program(.tick) = input.0 { return input.1 }
            return nil
        }
        let busySince = result.session.heard.first.map(\.1) ?? 0
        XCTAssertEqual(ticks.count, 1, "one tick, at the deadline: \(ticks)")
        XCTAssertGreaterThanOrEqual(ticks.first ?? 0, busySince + 0.2)
        XCTAssertNil(result.session.busyUntil, "the input ended only once the session was quiescent")
        XCTAssertTrue(
            result.lines.contains(#"{"event":"output","time":"T","text":"tick"}"#), "a note is a line: \(result.lines)")
    }

    func testADeliveredMessageIsSavedReportedAndItsReceiptFedBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("driver-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let from = PeerName(.central, BluetoothAddress("00:AA:01:01:00:01"))
        let arrival = MessageArrival(
            Message(text: "hello"), id: 1, from: from, number: 1, saveDirectory: directory,
            transfer: TransferID(1))
        let unsaved = MessageArrival(
            Message(text: "lost"), id: 2, from: from, number: 2, saveDirectory: directory + "/missing",
            transfer: TransferID(2))
        let result = run("good\nbad\n", ["good": .deliver(arrival), "bad": .deliver(unsaved)])
        XCTAssertEqual(result.lines.filter { $0.hasPrefix(#"{"event":"message""#) }.count, 2, "\(result.lines)")
        XCTAssertEqual(said(result), ["saved true", "saved false", "quitting"], "each receipt fed back, in order")
        XCTAssertTrue(result.lines.contains { $0.hasPrefix(#"{"event":"error""#) }, "the failed save said so")
        let saved = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertEqual(saved.count, 1, "\(saved)")
        XCTAssertEqual(try String(contentsOfFile: directory + "/" + saved[0], encoding: .utf8), "hello")
    }

    func testFailedMessagesAreCountedOnceEachAndThePromptFollowsTheSession() {
        let result = run("fail\nfail\nok\n", ["fail": .failMessage, "ok": .finish(problem: nil)])
        XCTAssertEqual(result.failures, 2)
        XCTAssertEqual(result.status, 1, "a failed message makes a script's status 1")
        XCTAssertEqual(result.prompts, ["stub [1 failed]> ", "stub [2 failed]> "], "changes only")
    }

    /// An input fed while the driver performs another's actions (a backend answering at once)
    /// waits its turn: the session is never re-entered and actions keep their order.
    func testAnInputFedWhilePerformingWaitsItsTurn() {
        let loop = EventLoop()
        let console = Console(format: .json, output: { _ in }, clock: { "T" })
        let driver = ProgramDriver<StubSession>(settings: (), loop: loop, console: console)
        final class Immediate: ActionPerformer {
            unowned let driver: ProgramDriver<StubSession>
            var depth = 0
            var maxDepth = 0
            init(driver: ProgramDriver<StubSession>) { self.driver = driver }
            func perform(_ action: StubSession.Action) {
                guard case .call(_, let token) = action else { return }
                depth += 1
                maxDepth = max(maxDepth, depth)
                driver.feed(.answered(token))
                depth -= 1
            }
            func shutdown(then done: @escaping () -> Void) { done() }
        }
        let performer = Immediate(driver: driver)
        driver.performer = performer
        driver.feed(.command(.callAndWait("a"), token: 7))
        driver.feed(.command(.callAndWait("b"), token: 8))
        let order = driver.session.heard.map { "\($0.0)" }
        XCTAssertEqual(order.count, 4)
        XCTAssertTrue(order[1].hasPrefix("answered"), "the answer came after the command it answers: \(order)")
        XCTAssertTrue(order[3].hasPrefix("answered"), "\(order)")
    }
}
