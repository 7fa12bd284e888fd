import RelayCLI
import RelayRuntime
import XCTest

@testable import RelayREPL

final class LineSplitterTests: XCTestCase {
    private func texts(_ lines: [InputLine]) -> [String] {
        lines.map { line in
            switch line.content {
            case .success(let text): return "\(line.number):\(text)"
            case .failure(let error): return "\(line.number):!\(error.message)"
            }
        }
    }

    func testPartialLinesWaitForTheirNewline() {
        var splitter = LineSplitter()
        XCTAssertEqual(texts(splitter.feed(Array("sta".utf8))), [])
        XCTAssertEqual(texts(splitter.feed(Array("rt\nnotify 1\r\nse".utf8))), ["1:start", "2:notify 1"])
        XCTAssertEqual(texts(splitter.feed(Array("nd x\n\n".utf8))), ["3:send x", "4:"])
        XCTAssertEqual(texts(splitter.finish()), [])
    }

    func testLastLineWithoutNewlineIsDeliveredAtEndOfInput() {
        var splitter = LineSplitter()
        XCTAssertEqual(texts(splitter.feed(Array("quit".utf8))), [])
        XCTAssertEqual(texts(splitter.finish()), ["1:quit"])
    }

    func testOverlongLineIsRefusedOnceWithoutBufferingIt() {
        var splitter = LineSplitter(maximumLength: 16)
        var results: [InputLine] = []
        for _ in 0..<1000 { results += splitter.feed([UInt8](repeating: 0x61, count: 100)) }
        XCTAssertEqual(results, [])
        results += splitter.feed(Array("tail\nok\n".utf8))
        XCTAssertEqual(texts(results), ["1:!line too long (100004 bytes, at most 16); ignored", "2:ok"])
    }

    func testOverlongLineAtEndOfInputIsRefused() {
        var splitter = LineSplitter(maximumLength: 4)
        _ = splitter.feed(Array("abcdefgh".utf8))
        XCTAssertEqual(texts(splitter.finish()), ["1:!line too long (8 bytes, at most 4); ignored"])
    }

    func testLineOfExactlyTheLimitIsAccepted() {
        var splitter = LineSplitter(maximumLength: 4)
        XCTAssertEqual(
            texts(splitter.feed(Array("abcd\r\nabcde\n".utf8))),
            ["1:abcd", "2:!line too long (5 bytes, at most 4); ignored"])
    }

    func testInvalidUTF8IsRefusedWithItsPosition() {
        XCTAssertEqual(
            LineValidator.validate([0x73, 0x65, 0xFF, 0x64]),
            .failure(CommandError("line is not valid UTF-8 (byte 0xFF at byte 3); ignored")))
        XCTAssertEqual(
            LineValidator.validate([0x61, 0xC3]),
            .failure(CommandError("line is not valid UTF-8 (byte 0xC3 at byte 2); ignored")))
        XCTAssertEqual(
            LineValidator.validate([0xED, 0xA0, 0x80]),  // an encoded surrogate
            .failure(CommandError("line is not valid UTF-8 (byte 0xED at byte 1); ignored")))
        XCTAssertEqual(LineValidator.validate(Array("héllo ✓".utf8)), .success("héllo ✓"))
    }

    func testControlCharactersOtherThanTabAreRefused() {
        XCTAssertEqual(LineValidator.validate(Array("send\ta".utf8)), .success("send\ta"))
        for byte: UInt8 in [0x00, 0x01, 0x07, 0x1B, 0x7F] {
            guard case .failure(let error) = LineValidator.validate([0x61, byte, 0x62]) else {
                return XCTFail("accepted control 0x\(String(byte, radix: 16))")
            }
            XCTAssertTrue(error.message.hasPrefix("control character 0x"), error.message)
            XCTAssertTrue(error.message.contains("at byte 2"), error.message)
        }
        guard case .failure = LineValidator.validate(Array("a\u{85}b".utf8)) else { return XCTFail("accepted C1 NEL") }
    }
}
