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
}
