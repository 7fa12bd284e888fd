import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

final class REPLHostileInputTests: XCTestCase {
    func testPartialLinesAcrossPipeWritesAndAHugeLine() {
        let harness = ScriptHarness()
        let huge = [UInt8](repeating: 0x78, count: 200_000) + [0x0A]
        let chunks: [[UInt8]] = [
            Array("se".utf8), Array("nd a\nse".utf8), Array("nd b\n".utf8), huge, Array("send c".utf8),
        ]
        XCTAssertEqual(harness.run(chunks), 1)
        XCTAssertEqual(harness.log, ["send:a", "send:b", "send:c"])
        XCTAssertEqual(harness.lines, ["error: line 3: line too long (200000 bytes, at most 65536); ignored"])
    }

    func testInvalidUTF8AndControlCharactersAreRefusedOneLineEach() {
        let harness = ScriptHarness()
        let script: [UInt8] =
            Array("send \u{FF}".utf8).prefix(5) + [0xFF, 0xFE, 0x0A]
            + Array("send a\u{1B}[2Jb\n".utf8) + [0x00, 0x0A] + Array("ok\r\n".utf8)
        XCTAssertEqual(harness.run([script]), 1)
        XCTAssertEqual(harness.log, ["ok"])
        XCTAssertEqual(
            harness.lines,
            [
                "error: line 1: line is not valid UTF-8 (byte 0xFF at byte 6); ignored",
                "error: line 2: control character 0x1B at byte 7 of the line; ignored (inside double quotes write \\n, \\t or \\r)",
                "error: line 3: control character 0x00 at byte 1 of the line; ignored (inside double quotes write \\n, \\t or \\r)",
            ])
    }

    func testHugeAndNegativeNumbersInCommandArguments() {
        let harness = ScriptHarness()
        XCTAssertEqual(harness.run(script: "wait x 99999999999999999999999\nwait x -5\nwait x 1e9\nsleep nan\n"), 1)
        XCTAssertEqual(harness.repl.failedCommands, 4)
        XCTAssertEqual(harness.lines.count, 4)
        for line in harness.lines { XCTAssertLessThan(line.count, 200) }
    }

    func testManyLinesAtOnceRunInOrder() {
        let harness = ScriptHarness()
        let script = (0..<5000).map { "send \($0)" }.joined(separator: "\n") + "\n"
        XCTAssertEqual(harness.run(script: script), 0)
        XCTAssertEqual(harness.log, (0..<5000).map { "send:\($0)" })
    }
}

extension REPLHostileInputTests {
    func testInputIsNotReadAheadWhileACommandRuns() {
        let harness = ScriptHarness()
        var bytesLeftInPipe = -1
        harness.repl.add(
            CommandSpec("check", summary: "Measure the pipe.") { [unowned harness] context in
                context.loop.schedule(after: 0.05) {
                    bytesLeftInPipe = harness.bytesWaitingInPipe()
                    context.succeed()
                }
                return .pending
            })
        let filler = String(repeating: "send x\n", count: 20_000)  // 140 kB: more than one read plus the pipe
        XCTAssertEqual(harness.run(script: "check\n" + filler), 0)
        XCTAssertGreaterThan(bytesLeftInPipe, 0, "the whole input was read while 'check' ran")
        XCTAssertEqual(harness.log.count, 20_000)
    }
}
