import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

final class CommandLineSplitterTests: XCTestCase {
    func testHeadSplitsNameFromRest() {
        let (name, rest) = CommandLineSplitter.head(of: "  \tsend   hello  world ")
        XCTAssertEqual(name, "send")
        XCTAssertEqual(String(rest), "hello  world ")
        XCTAssertEqual(CommandLineSplitter.head(of: "   ").name, "")
    }

    func testWordsHonourQuotesAndEscapes() throws {
        XCTAssertEqual(try CommandLineSplitter.words("a  b\tc"), ["a", "b", "c"])
        XCTAssertEqual(try CommandLineSplitter.words(#""hello world" x"#), ["hello world", "x"])
        XCTAssertEqual(
            try CommandLineSplitter.words(#"say\ it "q\"uote" back\\slash"#), ["say it", "q\"uote", "back\\slash"])
        XCTAssertEqual(try CommandLineSplitter.words(#"a\nb "\t""#), ["a\nb", "\t"])
        XCTAssertEqual(try CommandLineSplitter.words(#""" x"#), ["", "x"])
        XCTAssertEqual(try CommandLineSplitter.words(#"pre"fix mid"post"#), ["prefix midpost"])
    }

    func testWordsReportUnterminatedQuoteAndTrailingBackslash() {
        XCTAssertThrowsError(try CommandLineSplitter.words(#"a "b c"#)) { error in
            XCTAssertEqual((error as? CommandError)?.message, "unterminated double quote")
        }
        XCTAssertThrowsError(try CommandLineSplitter.words(#"a b\"#)) { error in
            XCTAssertTrue("\(error)".contains("backslash"))
        }
    }

    func testRestOfLineIsLiteralUnlessQuoted() throws {
        XCTAssertEqual(try CommandLineSplitter.restOfLine("hello   world  "), "hello   world")
        XCTAssertEqual(try CommandLineSplitter.restOfLine(#"it's C:\path "x""#), #"it's C:\path "x""#)
        XCTAssertEqual(try CommandLineSplitter.restOfLine(#""  padded\n\"q\" ""#), "  padded\n\"q\" ")
        XCTAssertEqual(try CommandLineSplitter.restOfLine(#""""#), "")
        XCTAssertThrowsError(try CommandLineSplitter.restOfLine(#""open"#))
        XCTAssertThrowsError(try CommandLineSplitter.restOfLine(#""a" b"#)) { error in
            XCTAssertTrue("\(error)".contains("after the closing quote"))
        }
    }
}
