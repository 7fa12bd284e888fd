import XCTest

@testable import RelayCLI

final class NameSuggestionTests: XCTestCase {
    func testEditDistanceCountsTranspositionsAsOneEdit() {
        XCTAssertEqual(NameSuggestion.editDistance(Array("sned"), Array("send")), 1)
        XCTAssertEqual(NameSuggestion.editDistance(Array(""), Array("abc")), 3)
        XCTAssertEqual(NameSuggestion.editDistance(Array("kitten"), Array("sitting")), 3)
    }

    func testAPrefixOfThreeCharactersSuggestsTheShortestName() {
        XCTAssertEqual(NameSuggestion.closest(to: "sen", among: ["send-file", "send", "status"]), "send")
        XCTAssertEqual(NameSuggestion.closest(to: "sned", among: ["send", "status"]), "send")
        XCTAssertNil(NameSuggestion.closest(to: "xyzzy", among: ["send", "status"]))
        XCTAssertNil(NameSuggestion.closest(to: "", among: ["send"]))
    }
}
