import Glibc
import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

final class REPLScriptTests: XCTestCase {
    func testCommandsRunInOrderSkippingBlanksAndComments() {
        let harness = ScriptHarness()
        let status = harness.run(script: "ok\n# a comment\n\n   \nsend hello  world\nsend \"quoted\\n\"\nok")
        XCTAssertEqual(status, 0)
        XCTAssertEqual(harness.log, ["ok", "send:hello  world", "send:quoted\n", "ok"])
        XCTAssertEqual(harness.repl.commandsRun, 4)
        XCTAssertEqual(harness.lines, [])
    }

    func testAFailureGivesStatusOneAndTheScriptGoesOn() {
        let harness = ScriptHarness()
        let status = harness.run(script: "fail\nok\nsned x\nthrow\nsend\nok\n")
        XCTAssertEqual(status, 1)
        XCTAssertEqual(harness.log, ["ok", "ok"])
        XCTAssertEqual(harness.repl.failedCommands, 4)
        XCTAssertEqual(
            harness.lines,
            [
                "error: line 1: it failed",
                "error: line 3: unknown command 'sned'; did you mean 'send'? Type 'help'.",
                "error: line 4: boom",
                "error: line 5: send: missing TEXT (usage: send TEXT)",
            ])
    }

    func testJSONErrorsCarryCommandAndLine() {
        let harness = ScriptHarness(format: .json)
        XCTAssertEqual(harness.run(script: "ok\nfail\nemit ready\n"), 1)
        XCTAssertEqual(
            harness.lines,
            [
                #"{"event":"error","time":"T","message":"it failed","command":"fail","line":2}"#,
                #"{"event":"ready","time":"T"}"#,
            ])
    }

    func testWaitSeesEventsThatArrivedWhileThePreviousCommandRan() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "connect\nwait connected 5\nwait ready 5\nok\n"), 0)
        XCTAssertEqual(harness.lines, ["connected", "ready"])
        XCTAssertEqual(harness.log, ["ok"])
    }

    func testWaitBlocksUntilTheEventArrives() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "later ready 0.05\nwait ready 10\nok\n"), 0)
        XCTAssertEqual(harness.lines, ["event ready"])
        XCTAssertEqual(harness.log, ["ok"])
    }

    func testWaitTimesOutFailsAndTheScriptContinues() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "wait ready 0.05\nok\n"), 1)
        XCTAssertEqual(harness.lines, ["error: line 1: wait: no 'ready' event within 0.05 s"])
        XCTAssertEqual(harness.log, ["ok"])
    }

    func testEventBeforeThePreviousCommandStartedDoesNotCount() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "emit ready\nok\nwait ready 0.05\n"), 1)
        XCTAssertTrue(harness.lines.last?.contains("no 'ready' event") ?? false, "\(harness.lines)")
    }

    func testEachWaitUsesUpOneEvent() {
        let harness = ScriptHarness()
        XCTAssertEqual(
            harness.run(script: "emit x\nemit x\nwait x 5\nwait x 0.05\n"), 1,
            "the earlier x came before the last command")
        let second = ScriptHarness()
        XCTAssertEqual(second.run(script: "connect\nwait ready 5\nwait ready 0.05\n"), 1)
        XCTAssertEqual(second.lines.last, "error: line 3: wait: no 'ready' event within 0.05 s")
    }

    func testWaitForAnUnknownEventFailsWithASuggestion() {
        let harness = ScriptHarness(eventNames: ["connected", "ready"])
        XCTAssertEqual(harness.run(script: "wait raedy\nwait ready x\n"), 1)
        XCTAssertEqual(
            harness.lines,
            [
                "error: line 1: wait: unknown event 'raedy'; did you mean 'ready'? events: connected, ready",
                "error: line 2: wait: SECONDS must be a number of seconds greater than 0 up to 86400, not 'x'",
            ])
    }

    func testSleepAndPendingCommandsThatFinishAtOnce() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "sleep 0.01\ninstant\nsleep 0\nok\nsleep -1\n"), 1)
        XCTAssertEqual(harness.log, ["ok"])
        XCTAssertEqual(harness.lines.count, 1)
        XCTAssertTrue(
            harness.lines[0].hasPrefix("error: line 5: sleep: SECONDS must not be negative"), harness.lines[0])
    }

    func testHelpListsProgramCommandsThenBuiltins() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "help\nhelp wait\nhelp nope\n"), 1)
        let text = harness.lines.joined(separator: "\n")
        XCTAssertTrue(text.contains("  send TEXT"))
        XCTAssertTrue(text.contains("  wait EVENT [SECONDS]"))
        XCTAssertTrue(text.contains("usage: wait EVENT [SECONDS]"))
        let sendLine = harness.lines.firstIndex { $0.hasPrefix("  send ") }!
        let quitLine = harness.lines.firstIndex { $0.hasPrefix("  quit ") }!
        XCTAssertLessThan(sendLine, quitLine)
        XCTAssertEqual(
            harness.lines.last, "error: line 3: help: unknown command 'nope'. Type 'help' for the list of commands.")
    }

    func testEndOfInputWaitsForThePendingCommandThenRunsTheHooks() {
        let harness = ScriptHarness()
        harness.repl.endOfInputHook = { [unowned harness] done in
            harness.log.append("drain")
            harness.loop.schedule(after: 0.02) { done() }
        }
        harness.repl.shutdownHook = { [unowned harness] done in
            harness.log.append("shutdown")
            done()
        }
        XCTAssertEqual(harness.run(script: "connect\nok"), 0)
        XCTAssertEqual(harness.log, ["ok", "drain", "shutdown"])
    }

    func testQuitStopsReadingAndStillDrains() {
        let harness = ScriptHarness()
        harness.repl.endOfInputHook = { [unowned harness] done in
            harness.log.append("drain")
            done()
        }
        XCTAssertEqual(harness.run(script: "ok\nquit\nok\nfail\n"), 0)
        XCTAssertEqual(harness.log, ["ok", "drain"])
    }

    func testTerminateEndsWithTheGivenStatus() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "ok\nfatal\nok\n"), 3)
        XCTAssertEqual(harness.log, ["ok"])
    }

    func testSIGTERMInterruptsThePendingCommandAndShutsDown() {
        let harness = ScriptHarness()
        harness.repl.shutdownHook = { [unowned harness] done in
            harness.log.append("shutdown")
            done()
        }
        XCTAssertEqual(harness.run(script: "raise \(SIGTERM)\nhang\nok\n"), 1)
        XCTAssertEqual(harness.log, ["cancelled", "shutdown"])
        XCTAssertEqual(harness.lines, ["error: line 2: hang: interrupted"])
    }

    func testSIGINTStopsAScriptWithStatus130() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "raise \(SIGINT)\nsleep 5\nok\n"), 130)
        XCTAssertEqual(harness.log, [])
        XCTAssertEqual(harness.lines, ["error: line 2: sleep: interrupted"])
        let idle = ScriptHarness()
        idle.repl.endOfInputHook = { _ in }  // never finishes: only Ctrl-C gets out
        XCTAssertEqual(idle.run(script: "raise \(SIGINT)\n"), 130)
    }
}
