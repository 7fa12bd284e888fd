import XCTest

@testable import RelayDBus

/// The `ay` fast path: a byte array travels as one buffer (`DBusValue.byteArray`), in and out
/// of libdbus with `dbus_message_iter_get_fixed_array` / `append_fixed_array`, and means the same
/// as the per-byte spelling `.array(element: .byte, ...)`.
final class ByteArrayTests: XCTestCase {
    private var generator = SeededBytes(seed: 0x5eed)

    /// Through a libdbus message in memory, then through its wire bytes.
    private func roundTrips(
        _ values: [DBusValue], file: StaticString = #filePath, line: UInt = #line
    ) throws
        -> [DBusValue]
    {
        let message = try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "M")
        try message.append(values)
        XCTAssertEqual(message.signatureString, values.signature.rawValue, file: file, line: line)
        let inMemory = try message.arguments()
        let overTheWire = try DBusWire.unmarshal(try DBusWire.marshal(values))
        XCTAssertEqual(inMemory, values, file: file, line: line)
        XCTAssertEqual(overTheWire, values, file: file, line: line)
        return overTheWire
    }

    func testByteArraysOfEverySizeRoundTripAsOneBuffer() throws {
        for size in [0, 1, 2, 3, 510, 511, 64 << 10] {
            let bytes = generator.next(size)
            let back = try roundTrips([.bytes(bytes)])
            guard case .byteArray(let decoded) = back[0] else {
                return XCTFail("an ay of \(size) bytes decoded as \(back[0].signature), not one buffer")
            }
            XCTAssertEqual(decoded, bytes, "size \(size)")
            XCTAssertEqual(back[0].asBytes, bytes, "size \(size)")
            XCTAssertEqual(back[0].signature, "ay")
        }
    }

    func testFollowingArgumentsStayAlignedAfterOddLengths() throws {
        // libdbus pads before each 4- and 8-byte value: an odd-length buffer must not shift them.
        let values: [DBusValue] = [
            .byte(1), .bytes(generator.next(3)), .uint32(0xdead_beef), .bytes(generator.next(510)),
            .uint64(.max), .bytes([]), .int16(-2), .bytes(generator.next(1)), .double(0.25), .string("end"),
        ]
        let back = try roundTrips(values)
        XCTAssertEqual(back[2], .uint32(0xdead_beef))
        XCTAssertEqual(back[4], .uint64(.max))
        XCTAssertEqual(back[8], .double(0.25))
        XCTAssertEqual(back[9], .string("end"))
    }

    func testByteArraysNestedInVariantsDictionariesStructsAndArrays() throws {
        let frame = generator.next(510)
        let big = generator.next(64 << 10)
        let values: [DBusValue] = [
            .variant(.bytes(frame)),
            .variant(.variant(.bytes([]))),
            .stringDict(["Value": .bytes(frame), "Empty": .bytes([]), "Big": .bytes(big), "Other": .uint16(5)]),
            .uint16Dict([0x004c: .bytes([1, 2, 3])]),
            .dictionary(
                key: .string, value: "ay",
                [(key: .string("a"), value: .bytes(frame)), (key: .string("b"), value: .bytes([]))]),
            .structure([.bytes(frame), .bytes([7]), .uint32(3)]),
            .array(element: "ay", [.bytes(frame), .bytes([]), .bytes([0xff])]),
            .array(element: .variant, [.variant(.bytes([1])), .variant(.string("x"))]),
        ]
        let back = try roundTrips(values)
        XCTAssertEqual(back[0].asVariant?.asBytes, frame)
        XCTAssertEqual(back[2].asDictionary?["Value"]?.asBytes, frame)
        XCTAssertEqual(back[2].asDictionary?["Big"]?.asBytes, big)
        XCTAssertEqual(back[2].asDictionary?["Empty"]?.asBytes, [])
        XCTAssertEqual(back[4].asDictionaryEntries?.first?.value.asBytes, frame)
        XCTAssertEqual(back[5].asStructure?.first?.asBytes, frame)
        XCTAssertEqual(back[6].asArray?.map(\.asBytes), [frame, [], [0xff]])
    }

    func testBothSpellingsAreOneValueOnTheWire() throws {
        let bytes = generator.next(510)
        let perByte = DBusValue.array(element: .byte, bytes.map { .byte($0) })
        let buffer = DBusValue.bytes(bytes)
        XCTAssertEqual(perByte, buffer)
        XCTAssertEqual(buffer, perByte)
        XCTAssertEqual(perByte.signature, buffer.signature)
        XCTAssertEqual(perByte.description, buffer.description)
        XCTAssertEqual(try DBusWire.marshal([perByte]), try DBusWire.marshal([buffer]))
        XCTAssertEqual(try DBusWire.marshal([.variant(perByte)]), try DBusWire.marshal([.variant(buffer)]))
        // Both decode to the buffer spelling.
        XCTAssertEqual(try roundTrips([perByte]), [buffer])
        XCTAssertEqual(buffer.asArray, bytes.map { .byte($0) })
    }

    func testSpellingsDifferWhenTheBytesOrTypesDiffer() {
        var changed = generator.next(510)
        let original = changed
        changed[509] ^= 1
        XCTAssertNotEqual(DBusValue.bytes(original), .bytes(changed))
        XCTAssertNotEqual(DBusValue.bytes(original), .array(element: .byte, changed.map { .byte($0) }))
        XCTAssertNotEqual(DBusValue.bytes(original), .array(element: .byte, original.dropLast().map { .byte($0) }))
        XCTAssertNotEqual(DBusValue.bytes([]), .array(element: .int32, []))
        XCTAssertNotEqual(DBusValue.bytes([1]), .array(element: .int32, [.int32(1)]))
        XCTAssertNotEqual(DBusValue.bytes([1]), .byte(1))
        XCTAssertNil(DBusValue.bytes([1]).asStrings)
    }

    func testAPerByteArrayHoldingAnotherTypeIsStillRejected() {
        let wrong = DBusValue.array(element: .byte, [.byte(1), .uint16(2)])
        XCTAssertThrowsError(try wrong.validate())
        XCTAssertThrowsError(try DBusWire.marshal([wrong]))
        XCTAssertNoThrow(try DBusValue.bytes(generator.next(64 << 10)).validate())
    }

    func testTruncatedWireBytesAreRejected() throws {
        let wire = try DBusWire.marshal([.bytes(generator.next(510)), .stringDict([:])])
        XCTAssertThrowsError(try DBusWire.unmarshal(Array(wire.dropLast(100)))) { error in
            guard case DBusError.malformedMessage = error else { return XCTFail("\(error)") }
        }
    }
}

/// Reproducible pseudo-random bytes (xorshift64*).
private struct SeededBytes {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return UInt8(truncatingIfNeeded: (state &* 0x2545_f491_4f6c_dd1d) >> 56)
        }
    }
}
