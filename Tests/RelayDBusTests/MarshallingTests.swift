import XCTest

@testable import RelayDBus

#if canImport(Glibc)
    import Glibc
#endif

/// Round trips through a real libdbus message, without any bus.
final class MarshallingTests: XCTestCase {
    private func roundTrip(
        _ values: [DBusValue], file: StaticString = #filePath, line: UInt = #line
    ) throws
        -> [DBusValue]
    {
        let message = try Message.methodCall(
            destination: "org.example.Test", path: "/test", interface: "org.example.Test", member: "Echo")
        try message.append(values)
        XCTAssertEqual(message.signatureString, values.signature.rawValue, file: file, line: line)
        return try message.arguments()
    }

    /// Also through the wire bytes (`dbus_message_marshal` / `demarshal`).
    private func wireRoundTrip(_ values: [DBusValue]) throws -> [DBusValue] {
        let message = try Message.methodCall(destination: nil, path: "/test", interface: nil, member: "Echo")
        try message.append(values)
        return try Message.demarshal(try message.marshal()).arguments()
    }

    private func assertRoundTrips(_ values: [DBusValue], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try roundTrip(values, file: file, line: line), values, file: file, line: line)
        XCTAssertEqual(try wireRoundTrip(values), values, file: file, line: line)
    }

    func testEveryBasicTypeRoundTrips() throws {
        try assertRoundTrips([
            .byte(0), .byte(255), .boolean(true), .boolean(false),
            .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .uint32(.max),
            .int64(.min), .uint64(.max), .double(-1.5), .double(.infinity), .double(.nan),
            .string(""), .string("héllo ✓"), .objectPath("/"), .objectPath("/org/bluez/hci0"),
            .signature(""), .signature("a{oa{sa{sv}}}"),
        ])
    }

    func testBooleanIs32BitsOnTheWire() throws {
        let message = try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "M")
        try message.append([.boolean(true)])
        let withBool = try message.marshal().count
        let other = try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "M")
        try other.append([.uint32(1)])
        XCTAssertEqual(withBool, try other.marshal().count)
        XCTAssertEqual(message.signatureString, "b")
    }

    func testArraysKeepTheirElementTypeWhenEmpty() throws {
        let values: [DBusValue] = [
            .array(element: .string, []), .array(element: "a{sv}", []), .array(element: "(ii)", []),
            .dictionary(key: .string, value: .variant, []), .dictionary(key: .uint16, value: "ay", []),
            .bytes([]),
        ]
        let back = try roundTrip(values)
        XCTAssertEqual(back, values)
        XCTAssertEqual(back.signature, "asaa{sv}a(ii)a{sv}a{qay}ay")
    }

    func testArraysAndByteArrays() throws {
        try assertRoundTrips([
            .bytes([0, 1, 2, 254, 255]), .strings(["a", "b", ""]), .objectPaths(["/a", "/a/b"]),
            .array(element: "ai", [.array(element: .int32, [.int32(1), .int32(2)]), .array(element: .int32, [])]),
            .array(element: .variant, [.variant(.string("x")), .variant(.uint16(7))]),
        ])
        XCTAssertEqual(try roundTrip([.bytes([9, 8, 7])])[0].asBytes, [9, 8, 7])
    }

    func testDictionariesWithEveryBlueZKeyType() throws {
        let asv = DBusValue.stringDict(["Name": .string("sample"), "RSSI": .int16(-60), "UUIDs": .strings(["180d"])])
        let aqv = DBusValue.uint16Dict([0x004c: .bytes([1, 2]), 0xffff: .bytes([])])
        let ayv = DBusValue.byteDict([0x16: .bytes([0xaa])])
        let typed = DBusValue.dictionary(
            key: .int64, value: .double, [(key: .int64(-1), value: .double(0.5)), (key: .int64(2), value: .double(3))])
        try assertRoundTrips([asv, aqv, ayv, typed])
        let back = try roundTrip([asv, aqv, ayv])
        XCTAssertEqual(back[0].asDictionary?["RSSI"], .int16(-60))
        XCTAssertEqual(back[1].asUInt16KeyedDictionary?[0x004c]?.asBytes, [1, 2])
        XCTAssertEqual(back[2].asByteKeyedDictionary?[0x16]?.asBytes, [0xaa])
    }

    func testManagedObjectsShape() throws {
        let tree = DBusValue.dictionary(
            key: .objectPath, value: "a{sa{sv}}",
            [
                (
                    key: .objectPath("/org/bluez/hci0"),
                    value: .dictionary(
                        key: .string, value: "a{sv}",
                        [
                            (key: .string("org.bluez.Adapter1"), value: .stringDict(["Powered": .boolean(true)])),
                            (key: .string("org.freedesktop.DBus.Properties"), value: .stringDict([:])),
                        ])
                ),
                (key: .objectPath("/org/bluez"), value: .dictionary(key: .string, value: "a{sv}", [])),
            ])
        XCTAssertEqual(tree.signature, "a{oa{sa{sv}}}")
        try assertRoundTrips([tree])
        let objects = try XCTUnwrap(try roundTrip([tree])[0].asManagedObjects)
        XCTAssertEqual(objects["/org/bluez/hci0"]?["org.bluez.Adapter1"]?["Powered"], .boolean(true))
        XCTAssertEqual(objects["/org/bluez"]?.isEmpty, true)
    }

    func testNestedVariantsAndStructs() throws {
        let nested = DBusValue.variant(.variant(.variant(.structure([.string("deep"), .bytes([1])]))))
        let structure = DBusValue.structure([
            .int32(1),
            .structure([.string("inner"), .array(element: "(yb)", [.structure([.byte(1), .boolean(true)])])]),
        ])
        try assertRoundTrips([nested, structure, .variant(.stringDict(["k": .variant(.int32(3))]))])
        XCTAssertEqual(try roundTrip([nested])[0].unwrapped.asStructure?.first, .string("deep"))
        XCTAssertEqual(structure.signature, "(i(sa(yb)))")
    }

    func testUnixFileDescriptorSurvives() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let writeEnd = FileDescriptor(owning: ends[1])
        defer { close(ends[0]) }
        let back = try roundTrip([.unixFD(writeEnd), .uint16(23)])
        let received = try XCTUnwrap(back[0].asFileDescriptor)
        XCTAssertFalse(received === writeEnd)
        XCTAssertNotEqual(received.rawValue, writeEnd.rawValue)
        writeEnd.close()
        // The received duplicate still reaches the pipe after the original is closed.
        let payload: [UInt8] = [1, 2, 3]
        XCTAssertEqual(payload.withUnsafeBytes { write(try! XCTUnwrap(received.rawValue), $0.baseAddress, 3) }, 3)
        received.close()
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, 8) }, 3)
        XCTAssertEqual(Array(buffer.prefix(3)), payload)
        XCTAssertEqual(back[1], .uint16(23))
    }

    func testInvalidValuesAreRejectedBeforeLibdbusSeesThem() throws {
        let message = try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "M")
        let bad: [DBusValue] = [
            .array(element: .string, [.int32(1)]),
            .dictionary(key: "ay", value: .string, []),
            .dictionary(key: .string, value: .variant, [(key: .string("k"), value: .string("not a variant"))]),
            .structure([]),
            .string("nul\0inside"),
            .array(element: "ss", []),
        ]
        for value in bad {
            XCTAssertThrowsError(try message.append([value]), "\(value)") { error in
                guard case DBusError.invalidValue = error else { return XCTFail("\(error)") }
            }
        }
        let closed = FileDescriptor(owning: -1)
        XCTAssertThrowsError(try message.append([.unixFD(closed)]))
    }

    func testInvalidNamesThrowInsteadOfAborting() {
        XCTAssertThrowsError(try Message.methodCall(destination: "no dots", path: "/t", interface: nil, member: "M"))
        XCTAssertThrowsError(try Message.methodCall(destination: nil, path: "/t", interface: "nodots", member: "M"))
        XCTAssertThrowsError(try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "a.b"))
        XCTAssertThrowsError(try ObjectPath(String("relative")))
        XCTAssertThrowsError(try ObjectPath(String("/trailing/")))
        XCTAssertThrowsError(try ObjectPath(String("/double//slash")))
        XCTAssertThrowsError(try ObjectPath(String("/bad-char")))
        XCTAssertThrowsError(try DBusSignature(String("a{vs}")))
        XCTAssertThrowsError(try DBusSignature(String("(i")))
    }

    func testMalformedBytesGiveTypedErrors() throws {
        let message = try Message.methodCall(destination: nil, path: "/t", interface: nil, member: "M")
        try message.append([.stringDict(["a": .int32(1)]), .strings(["x", "y"])])
        let bytes = try message.marshal()
        let cases: [[UInt8]] = [
            [], Array(bytes.prefix(10)), Array(bytes.dropLast(3)),
            [UInt8](repeating: 0xff, count: bytes.count),
            // Byte-order flag must be 'l' or 'B'.
            [UInt8(ascii: "x")] + bytes.dropFirst(),
        ]
        for bad in cases {
            XCTAssertThrowsError(try Message.demarshal(bad)) { error in
                guard case DBusError.malformedMessage = error else { return XCTFail("\(error)") }
            }
        }
        // Corrupt the body signature's declared type ('s' -> 'i'): must be rejected, not trusted.
        var corrupt = bytes
        if let index = indexOfSignature("a{sv}as", in: corrupt) {
            corrupt[index + 2] = UInt8(ascii: "i")
            XCTAssertThrowsError(try Message.demarshal(corrupt).arguments())
        } else {
            XCTFail("signature not found in marshalled bytes")
        }
    }

    func testWrongShapeGivesTypedError() throws {
        let arguments = try roundTrip([.int32(5), .bytes([1])])
        XCTAssertEqual(try arguments.argument(0, \.asInt32), 5)
        XCTAssertEqual(try arguments.argument(1, \.asBytes), [1])
        XCTAssertThrowsError(try arguments.argument(0, \.asString)) { error in
            guard case DBusError.wrongShape = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try arguments.argument(2, \.asString)) { error in
            guard case DBusError.wrongShape = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try arguments.expectSignature("ias"))
        XCTAssertNoThrow(try arguments.expectSignature("iay"))
        XCTAssertNil(DBusValue.strings(["a"]).asBytes)
        XCTAssertNil(DBusValue.uint16Dict([:]).asDictionary)
    }

    func testSignatureHelpers() {
        XCTAssertEqual(DBusSignature("sa{sv}oh").completeTypes, ["s", "a{sv}", "o", "h"])
        XCTAssertEqual(DBusSignature("a(ii)aai").completeTypes, ["a(ii)", "aai"])
        XCTAssertTrue(DBusSignature("a{sv}").isSingleCompleteType)
        XCTAssertFalse(DBusSignature("ss").isSingleCompleteType)
        XCTAssertTrue(DBusSignature.uint16.isBasic)
        XCTAssertFalse(DBusSignature.variant.isBasic)
    }

    func testObjectPathHelpers() throws {
        let path: ObjectPath = "/org/bluez/hci0/dev_00_11"
        XCTAssertEqual(path.parent, "/org/bluez/hci0")
        XCTAssertEqual(ObjectPath.root.parent, nil)
        XCTAssertTrue(path.isDescendant(of: "/org/bluez"))
        XCTAssertTrue(path.isDescendant(of: .root))
        XCTAssertFalse(ObjectPath("/org/bluez2").isDescendant(of: "/org/bluez"))
        XCTAssertEqual(try ObjectPath.root.appending("app"), "/app")
        XCTAssertThrowsError(try path.appending("a/b"))
    }

    private func indexOfSignature(_ signature: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(signature.utf8)
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where Array(bytes[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }
}
