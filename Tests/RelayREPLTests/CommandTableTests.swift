import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

final class CommandTableTests: XCTestCase {
    private func table() -> CommandTable {
        var table = CommandTable()
        table.add(CommandSpec("start", summary: "Register and advertise.") { _ in .success })
        table.add(
            CommandSpec(
                "notify", synopsis: "[N]", summary: "Notify the counter.", details: "Counts up.\nLike the app.",
                shape: .words(min: 0, max: 1)
            ) { _ in .success })
        table.add(
            CommandSpec("send", synopsis: "TEXT", summary: "Send a message.", shape: .restOfLine(required: true)) { _ in
                .success
            })
        table.add(
            CommandSpec(
                "send-file", synopsis: "PATH", summary: "Send a file.", shape: .words(min: 1, max: 1),
                completion: .paths
            ) { _ in .success })
        table.add(
            CommandSpec(
                "scan", synopsis: "[stop]", summary: "Scan.", shape: .words(min: 0, max: 1),
                completion: .words(["stop"])
            ) { _ in .success })
        return table
    }

    func testParseSplitsArgumentsByShape() throws {
        let table = table()
        XCTAssertEqual(try table.parse("send hello  world").arguments, ["hello  world"])
        XCTAssertEqual(try table.parse(#"send "hello world""#).arguments, ["hello world"])
        XCTAssertEqual(try table.parse(#"send """#).arguments, [""])
        XCTAssertEqual(try table.parse("notify 5").arguments, ["5"])
        XCTAssertEqual(try table.parse("  notify").arguments, [])
        XCTAssertEqual(try table.parse("send-file \"/tmp/a b\"").arguments, ["/tmp/a b"])
    }

    func testParseRejectsWrongArgumentCounts() {
        let table = table()
        XCTAssertThrowsError(try table.parse("start now")) { error in
            XCTAssertEqual("\(error)", "start takes no arguments (usage: start)")
        }
        XCTAssertThrowsError(try table.parse("notify 1 2")) { error in
            XCTAssertEqual("\(error)", "notify takes at most 1 argument (usage: notify [N])")
        }
        XCTAssertThrowsError(try table.parse("send")) { error in
            XCTAssertEqual("\(error)", "send: missing TEXT (usage: send TEXT)")
        }
        XCTAssertThrowsError(try table.parse("send-file")) { error in
            XCTAssertEqual("\(error)", "send-file: missing argument (usage: send-file PATH)")
        }
        XCTAssertThrowsError(try table.parse(#"send-file "x"#)) { error in
            XCTAssertEqual("\(error)", "send-file: unterminated double quote")
        }
    }

    func testUnknownCommandSuggestsTheClosestName() {
        let table = table()
        XCTAssertThrowsError(try table.parse("sned hi")) { error in
            XCTAssertEqual("\(error)", "unknown command 'sned'; did you mean 'send'? Type 'help'.")
        }
        XCTAssertEqual(table.suggestion(for: "notfy"), "notify")
        XCTAssertEqual(table.suggestion(for: "strat"), "start")
        XCTAssertEqual(table.suggestion(for: "send-f"), "send-file")
        XCTAssertEqual(table.suggestion(for: "sen"), "send")
        XCTAssertNil(table.suggestion(for: "xyzzy"))
        XCTAssertThrowsError(try table.parse("xyzzy")) { error in
            XCTAssertEqual("\(error)", "unknown command 'xyzzy'. Type 'help' for the list of commands.")
        }
    }

    func testHelpListsEveryCommandInOrderAndExplainsOne() {
        let table = table()
        let lines = table.helpText().split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "Commands:")
        XCTAssertEqual(lines.last, "Type 'help COMMAND' for details.")
        XCTAssertEqual(lines.count, 2 + 5)
        XCTAssertTrue(lines[1].hasPrefix("  start "))
        XCTAssertTrue(lines[2].hasPrefix("  notify [N] "))
        XCTAssertTrue(lines[2].hasSuffix("Notify the counter."))
        let summaries = ["Register and advertise.", "Notify the counter.", "Send a message.", "Send a file.", "Scan."]
        let columns = zip(lines[1...5], summaries).map { line, summary in line.count - summary.count }
        XCTAssertEqual(Set(columns).count, 1, "summaries are not aligned: \(lines)")
        for (line, summary) in zip(lines[1...5], summaries) { XCTAssertTrue(line.hasSuffix(summary)) }
        XCTAssertEqual(
            table.helpText(for: "notify"), "usage: notify [N]\n  Notify the counter.\n  Counts up.\n  Like the app.")
        XCTAssertNil(table.helpText(for: "nope"))
    }

    func testCompletionOffersCommandsThenArguments() {
        let table = table()
        XCTAssertEqual(table.completions(lineBeforeWord: "", word: "se"), ["send", "send-file"])
        XCTAssertEqual(table.completions(lineBeforeWord: "  ", word: "s"), ["start", "send", "send-file", "scan"])
        XCTAssertEqual(table.completions(lineBeforeWord: "scan ", word: "s"), ["stop"])
        XCTAssertEqual(table.completions(lineBeforeWord: "notify ", word: ""), [])
        XCTAssertNil(table.completions(lineBeforeWord: "send-file ", word: "/tm"))
    }
}
