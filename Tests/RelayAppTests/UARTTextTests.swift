import RelayApp
import RelayTestSupport
import XCTest

/// Text to and from UART (Nordic UART Service) peers: lines assembled across writes, text cut
/// into values that are each valid UTF-8.
final class UARTTextTests: XCTestCase {
    func testLFCRAndCRLFEndLinesAcrossWrites() {
        var lines = UARTLineAssembler()
        XCTAssertEqual(lines.receive(Array("hel".utf8), at: 0), [])
        XCTAssertEqual(lines.receive(Array("lo\rwor".utf8), at: 0.1), ["hello"])
        XCTAssertEqual(lines.receive(Array("ld\r".utf8), at: 0.2), ["world"])
        XCTAssertEqual(
            lines.receive(Array("\nnext\n".utf8), at: 0.3), ["next"], "a CRLF split across writes ends one line")
        XCTAssertEqual(lines.receive(Array("a\r\nb\n\n".utf8), at: 0.4), ["a", "b"], "no empty lines")
        XCTAssertEqual(lines.receive(Array("c".utf8), at: 0.5), [])
        XCTAssertEqual(lines.tick(at: 1.0), ["c"])
        XCTAssertEqual(lines.receive(Array("\r\n".utf8), at: 1.2), [], "an ending after the pause ended the line")
        XCTAssertNil(lines.deadline)
    }

    func testAPauseEndsALineWithoutAnEnding() {
        var lines = UARTLineAssembler()
        XCTAssertEqual(lines.receive(Array("no newline".utf8), at: 10), [])
        XCTAssertEqual(lines.deadline, 10.5)
        XCTAssertEqual(lines.tick(at: 10.4), [])
        XCTAssertEqual(lines.tick(at: 10.5), ["no newline"])
        XCTAssertEqual(lines.receive(Array("late".utf8), at: 20), [])
        XCTAssertEqual(lines.receive(Array(" more".utf8), at: 21), ["late"], "a pause before more bytes ends it too")
    }

    func testInvalidUTF8IsShownEscapedAndCharactersSplitAcrossWritesStayWhole() {
        var lines = UARTLineAssembler()
        let text = Array("räksmörgås 写真".utf8)
        XCTAssertEqual(lines.receive(Array(text[0..<2]), at: 0), [])
        XCTAssertEqual(lines.receive(Array(text[2...]) + [0x0A], at: 0.1), ["räksmörgås 写真"])
        XCTAssertEqual(lines.receive([0x61, 0xFF, 0xC3, 0x62, 0xE5, 0x0A], at: 0.2), ["a\\xFF\\xC3b\\xE5"])
    }

    func testAHostileEndlessLineIsCut() {
        var lines = UARTLineAssembler()
        let got = lines.receive([UInt8](repeating: 0x41, count: UARTLineAssembler.maximumLine * 2 + 10), at: 0)
        XCTAssertEqual(got.map(\.count), [UARTLineAssembler.maximumLine - 3, UARTLineAssembler.maximumLine - 3])
        XCTAssertEqual(lines.tick(at: 1), [String(repeating: "A", count: 16)])
        let wide = Array(String(repeating: "写", count: 2000).utf8)  // 6000 bytes of 3-byte characters
        let cut = lines.receive(wide, at: 2) + lines.tick(at: 3)
        XCTAssertEqual(cut.joined(), String(repeating: "写", count: 2000), "never cut inside a character")
        XCTAssertTrue(cut.allSatisfy { $0.utf8.count <= UARTLineAssembler.maximumLine })
    }

    func testTextIsCutIntoValidUTF8ValuesWithItsEnding() {
        var generator = SeededGenerator(seed: 18)
        let alphabet = Array("aé写🙂👩‍👩‍👧‍👦x")
        for maxBytes in [20, 244, 514] {
            for _ in 0..<50 {
                let text = String(
                    (0..<Int.random(in: 0...700, using: &generator)).map { _ in
                        alphabet.randomElement(using: &generator)!
                    })
                let values = UARTTextSplitter.values(text, ending: .crlf, maxBytes: maxBytes)
                XCTAssertTrue(values.allSatisfy { $0.count <= maxBytes && !$0.isEmpty })
                XCTAssertTrue(values.dropLast().allSatisfy { String(validating: $0, as: UTF8.self) != nil })
                XCTAssertEqual(values.flatMap { $0 }, Array(text.utf8) + [0x0D, 0x0A])
            }
        }
        XCTAssertEqual(UARTTextSplitter.values("hi", ending: .lf, maxBytes: 20), [[0x68, 0x69, 0x0A]])
        XCTAssertEqual(UARTTextSplitter.values("", ending: .none, maxBytes: 20), [])
        let family = "👩‍👩‍👧‍👦"  // 25 bytes: longer than a value at MTU 23, cut between its scalars
        XCTAssertEqual(
            UARTTextSplitter.values(family, ending: .none, maxBytes: 20).map { String(decoding: $0, as: UTF8.self) },
            ["👩\u{200D}👩\u{200D}👧", "\u{200D}👦"])
    }
}
