import RelayProtocol
import XCTest

/// `--trace` reads the protocol document's examples back: each vector's `trace` field is what
/// `ValueMeaning` says of its value (or of its first frame).
final class TraceVectorTests: XCTestCase {
    func testEveryExampleTracesAsTheDocumentSays() throws {
        let vectors = try ProtocolDocument.vectors()
        var traced = 0
        for vector in vectors {
            guard vector.fields["lane"] != "offer",
                let bytes = vector.hexFields["value"] ?? vector.hexFields["frame 0"]
            else { continue }
            let onSession = vector.fields["session-frame"] != nil || vector.fields["compact-frame"] != nil
            let characteristic: TracedCharacteristic =
                vector.fields["lane"] != nil ? .lane : onSession ? .session : .write
            let meaning = ValueMeaning.describe(bytes, on: characteristic)
            XCTAssertEqual(vector.fields["trace"], meaning, vector.name)
            traced += 1
        }
        XCTAssertGreaterThanOrEqual(traced, 13, "every example with a value has a trace line")
    }

    func testWhatIsNotARelayValueSaysWhy() {
        XCTAssertEqual(
            ValueMeaning.describe([0x00, 0x01, 0x02], on: .write),
            "not a relay value: not a relay frame (first byte 0x00)")
        XCTAssertEqual(ValueMeaning.describe([0x2a, 0, 0, 0], on: .session), "counter 42")
        XCTAssertTrue(ValueMeaning.describe([0xB2, 0x09], on: .session).hasPrefix("not a relay value: "))
    }
}
