import XCTest

@testable import RelayCLI

final class ConsoleTests: XCTestCase {
    private func makeConsole(_ format: Console.Format) -> (Console, () -> [String]) {
        final class Sink { var text = "" }
        let sink = Sink()
        let console = Console(format: format, output: { sink.text += $0 }, clock: { "T" })
        return (
            console, { sink.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        )
    }

    func testHumanModePrintsDescriptionsAndErrors() {
        let (console, lines) = makeConsole(.human)
        console.report(SimpleEvent("counter", human: "counter 7 from AA:BB", fields: [("value", 7)]))
        console.error("adapter is off")
        console.print("two\nlines")
        XCTAssertEqual(lines(), ["counter 7 from AA:BB", "error: adapter is off", "two", "lines"])
    }

    func testJSONModeWritesOneObjectPerLineWithEventAndTime() {
        let (console, lines) = makeConsole(.json)
        console.report(SimpleEvent("counter", human: "ignored", fields: [("value", 7), ("event", "spoof")]))
        console.error("adapter is off")
        console.print("help\ntext")
        XCTAssertEqual(
            lines(),
            [
                #"{"event":"counter","time":"T","value":7}"#,
                #"{"event":"error","time":"T","message":"adapter is off"}"#,
                #"{"event":"output","time":"T","text":"help\ntext"}"#,
            ])
    }

    func testHumanOutputNeutralisesTerminalControlSequences() {
        let (console, lines) = makeConsole(.human)
        console.report(SimpleEvent("message", human: "text: \u{1B}[2Jboom\u{07}\tok\u{9B}"))
        XCTAssertEqual(lines(), ["text: \\x1B[2Jboom\\x07\tok\\x9B"])
    }

    func testObserversSeeReportedEventsButNotPrintedText() {
        let (console, _) = makeConsole(.human)
        var seen: [String] = []
        console.addObserver { seen.append($0.name) }
        console.report(SimpleEvent("connected", human: "connected"))
        console.print("status")
        console.error("boom")
        console.commandFailed("bad", command: "x", line: 1)
        XCTAssertEqual(seen, ["connected", "error"])
    }

    /// A terminal that understands what the console writes (newline, carriage return, cursor up,
    /// clear to end of screen) with a readline-like prompt `> typed` on the last row.
    private final class Screen: LineEditorOutput {
        var rows: [String] = ["> typed"]
        var row = 0
        var isEditing = true

        func printAbove(_ text: String, using output: (String) -> Void) {
            rows[row] = ""
            output(text)
            rows[row] = "> typed"
        }

        func write(_ text: String) {
            var scalars = Array(text.unicodeScalars)[...]
            while let scalar = scalars.popFirst() {
                switch scalar {
                case "\n":
                    row += 1
                    if row == rows.count { rows.append("") }
                case "\r": break
                case "\u{1B}":
                    XCTAssertEqual(scalars.popFirst(), "[")
                    var digits = ""
                    while let next = scalars.first, next.properties.numericType != nil {
                        digits.unicodeScalars.append(next)
                        scalars.removeFirst()
                    }
                    switch scalars.popFirst() {
                    case "A": row -= Int(digits) ?? 1
                    case "J": rows = Array(rows[..<row]) + [""]
                    case let other: XCTFail("unexpected escape \(String(describing: other))")
                    }
                default: rows[row].unicodeScalars.append(scalar)
                }
            }
        }
    }

    private struct Live: ReportableEvent {
        let name = "progress"
        let fields: [(String, JSONValue)] = []
        let humanDescription: String
        let liveLine: LiveLine?
    }

    func testLiveLinesStayAboveThePromptUpdatedInPlaceAndEndWithTheirEvent() {
        let screen = Screen()
        let console = Console(format: .human, output: screen.write, clock: { "T" })
        console.editor = screen
        console.columns = { 40 }
        console.report(Live(humanDescription: "", liveLine: .update(key: "out-1", text: "sending a.jpg: 10 %")))
        XCTAssertEqual(screen.rows, ["sending a.jpg: 10 %", "> typed"])
        console.report(SimpleEvent("counter", human: "counter 7", fields: []))
        console.report(Live(humanDescription: "", liveLine: .update(key: "in-4", text: "receiving b: 1 %")))
        console.report(Live(humanDescription: "", liveLine: .update(key: "out-1", text: "sending a.jpg: 20 %")))
        XCTAssertEqual(screen.rows, ["counter 7", "sending a.jpg: 20 %", "receiving b: 1 %", "> typed"])
        console.report(
            Live(
                humanDescription: "receiving b: " + String(repeating: "x", count: 60),
                liveLine: .update(key: "in-4", text: "receiving b: " + String(repeating: "x", count: 60))))
        XCTAssertEqual(screen.rows[2].count, 39, "cut to one row")
        console.report(Live(humanDescription: "delivered message 1", liveLine: .end(key: "out-1")))
        XCTAssertEqual(screen.rows, ["counter 7", "delivered message 1", String(screen.rows[2]), "> typed"])
        console.report(Live(humanDescription: "message 4 from x", liveLine: .end(key: "in-4")))
        XCTAssertEqual(screen.rows, ["counter 7", "delivered message 1", "message 4 from x", "> typed"])
    }

    func testWithoutAPromptLiveLinesAreNotPrintedButTheirEndIs() {
        let (console, lines) = makeConsole(.human)
        console.report(Live(humanDescription: "x", liveLine: .update(key: "out-1", text: "sending a: 5 %")))
        console.report(Live(humanDescription: "delivered message 1", liveLine: .end(key: "out-1")))
        XCTAssertEqual(lines(), ["delivered message 1"])
        let (json, jsonLines) = makeConsole(.json)
        json.report(Live(humanDescription: "x", liveLine: .update(key: "out-1", text: "sending a: 5 %")))
        XCTAssertEqual(jsonLines(), [#"{"event":"progress","time":"T"}"#], "JSON keeps every progress event")
    }

    func testALiveLineIsCutByDisplayColumns() {
        XCTAssertEqual(Console.cut("写真写真写真", toColumns: 7), "写真写…", "wide characters take two columns")
        XCTAssertEqual(Console.cut("abc", toColumns: 7), "abc")
        XCTAssertEqual(Console.cut("a\nb", toColumns: 7), "a b", "never two rows")
    }
}
