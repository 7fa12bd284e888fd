import RelayProtocol
import XCTest

/// Checks compact data frames against the examples of docs/protocol.md ("Version 2 examples").
final class CompactFrameVectorTests: XCTestCase {
    private func vectors() throws -> [String: GoldenVector] {
        let vectors = try ProtocolDocument.vectors().filter { $0.fields["compact-frame"] != nil }
        XCTAssertEqual(Set(vectors.map(\.name)), ["v3-compact-data", "v3-compact-data-far"])
        return Dictionary(uniqueKeysWithValues: vectors.map { ($0.name, $0) })
    }

    func testEveryExampleEncodesParsesAndReadsItsOffset() throws {
        for vector in try vectors().values {
            let value = try XCTUnwrap(vector.hexFields["value"], vector.name)
            let offset = try XCTUnwrap(vector.integer("offset"), vector.name)
            let frame = CompactDataFrame(offset: offset, bytes: Array(value.dropFirst(2)))
            XCTAssertEqual(frame.encoded, value, vector.name)
            XCTAssertEqual(frame.encodedLength, value.count, vector.name)
            XCTAssertEqual(try SessionValue(parsing: value), .compact(frame), vector.name)
            let received = try XCTUnwrap(vector.integer("received"), vector.name)
            XCTAssertEqual(frame.offset(near: received), offset, vector.name)
        }
    }

    func testAValueOfFourBytesIsACounterAndTwoBytesAreNoFrame() throws {
        XCTAssertEqual(try SessionValue(parsing: [0xC0, 0x14, 0x01, 0x02]), .counter(Counter(0x0201_14C0)))
        XCTAssertThrowsError(try SessionValue(parsing: [0xC0, 0x14])) { error in
            XCTAssertEqual(error as? SessionFrameError, .emptyData)
        }
        XCTAssertFalse(CompactDataFrame.canCarry(2))
        XCTAssertTrue(CompactDataFrame.canCarry(1))
        XCTAssertTrue(CompactDataFrame.canCarry(3))
        // 0xB2 (every other session frame) is not compact; 0xC0-0xFF are.
        XCTAssertFalse(CompactDataFrame.isCompact(firstByte: SessionFrame.markerByte))
        XCTAssertEqual((0...255).filter { CompactDataFrame.isCompact(firstByte: UInt8($0)) }.count, 64)
    }
}
