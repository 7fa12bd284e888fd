import Foundation
import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

/// Method calls between two connections on a private bus.
final class ConnectionTests: XCTestCase {
    private var loop: EventLoop!
    private var bus: PrivateBus!
    private var server: DBusConnection!
    private var client: DBusConnection!
    private var heldReplies: [DBusReplyHandle] = []
    private var received: [DBusMethodCall] = []

    override func setUpWithError() throws {
        loop = EventLoop()
        bus = try PrivateBus()
        server = try bus.connect(loop)
        client = try bus.connect(loop)
        server.exportPolicy = .uniqueNames([client.uniqueName])
        let loop = self.loop!
        let interface = ExportedInterface(
            "org.example.Echo",
            methods: [
                ExportedMethod("Echo") { [unowned self] call in
                    self.received.append(call)
                    return .success(call.arguments)
                },
                ExportedMethod("Fail") { _ in
                    .failure(DBusRemoteError(name: "org.bluez.Error.NotPermitted", message: "Write not permitted"))
                },
                ExportedMethod("Typed", input: "su", output: "s") { call in
                    .success([.string("\(call.arguments[0].asString!)-\(call.arguments[1].asUInt32!)")])
                },
                .deferred("Later", input: "u", output: "u") { call, reply in
                    let value = call.arguments[0]
                    loop.post { reply.succeed([value]) }
                },
                .deferred("Never") { [unowned self] _, reply in self.heldReplies.append(reply) },
                .deferred("Dropped") { _, _ in },
                ExportedMethod("Pipe", output: "h") { _ in
                    var ends: [Int32] = [0, 0]
                    guard pipe(&ends) == 0 else { return .failure(.failed("pipe")) }
                    let readEnd = FileDescriptor(owning: ends[0])
                    let message: [UInt8] = Array("from server".utf8)
                    _ = message.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
                    close(ends[1])
                    return .success([.unixFD(readEnd)])
                },
                ExportedMethod("WriteInto", input: "hs") { call in
                    guard let fd = call.arguments[0].asFileDescriptor?.rawValue, let text = call.arguments[1].asString
                    else { return .failure(.invalidArgs("need h s")) }
                    let bytes = Array(text.utf8)
                    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    return written == bytes.count ? .success([]) : .failure(.failed("write failed"))
                },
            ])
        try server.export(ExportedObject(path: "/test/echo", interfaces: [interface]))
    }

    override func tearDown() {
        heldReplies.removeAll()
        client = nil
        server = nil
        bus.stop()
        bus = nil
        loop = nil
    }

    private func call(
        _ method: String, _ arguments: [DBusValue] = [], path: ObjectPath = "/test/echo",
        interface: String? = "org.example.Echo", timeout: Double = 25
    ) -> Result<[DBusValue], DBusError>? {
        loop.call(client, server.uniqueName, path, interface, method, arguments, timeout: timeout)
    }

    func testUniqueNamesDiffer() {
        XCTAssertTrue(server.uniqueName.hasPrefix(":"))
        XCTAssertNotEqual(server.uniqueName, client.uniqueName)
    }

    func testMethodCallAndReplyCarryEveryType() throws {
        let arguments: [DBusValue] = [
            .string("hi"), .boolean(true), .uint16(512), .bytes([1, 2, 3]),
            .dictionary(key: .string, value: .variant, []),
            .stringDict(["device": .objectPath("/org/bluez/hci0/dev_00"), "mtu": .uint16(185), "offset": .uint16(0)]),
            .structure([.int64(-3), .variant(.double(2.5))]),
        ]
        let result = try XCTUnwrap(call("Echo", arguments))
        XCTAssertEqual(try result.get(), arguments)
        XCTAssertEqual(received.first?.sender, client.uniqueName)
        XCTAssertEqual(received.first?.path, "/test/echo")
        XCTAssertEqual(received.first?.member, "Echo")
        // A call without interface finds the method too.
        XCTAssertEqual(try XCTUnwrap(call("Echo", [.int32(1)], interface: nil)).get(), [.int32(1)])
    }

    func testErrorReplyBecomesRemoteErrorWithNameAndMessage() {
        let error = remoteError(call("Fail"))
        XCTAssertEqual(error, DBusRemoteError(name: "org.bluez.Error.NotPermitted", message: "Write not permitted"))
    }

    func testDeclaredInputSignatureIsChecked() throws {
        XCTAssertEqual(try XCTUnwrap(call("Typed", [.string("a"), .uint32(7)])).get(), [.string("a-7")])
        XCTAssertEqual(remoteError(call("Typed", [.string("a")]))?.name, DBusRemoteError.Names.invalidArgs)
    }

    func testUnknownObjectMethodAndInterfaceGetErrorReplies() {
        XCTAssertEqual(remoteError(call("Echo", path: "/nothing/here"))?.name, DBusRemoteError.Names.unknownObject)
        XCTAssertEqual(remoteError(call("Nope"))?.name, DBusRemoteError.Names.unknownMethod)
        XCTAssertEqual(
            remoteError(call("Echo", interface: "org.example.Other"))?.name,
            DBusRemoteError.Names.unknownInterface)
        // A parent of an exported object is introspectable but has no methods.
        XCTAssertEqual(remoteError(call("Echo", path: "/test"))?.name, DBusRemoteError.Names.unknownObject)
    }

    func testDeferredReply() throws {
        XCTAssertEqual(try XCTUnwrap(call("Later", [.uint32(42)])).get(), [.uint32(42)])
    }

    func testDroppedDeferredReplyStillAnswers() {
        XCTAssertEqual(remoteError(call("Dropped"))?.name, DBusRemoteError.Names.failed)
    }

    func testTimeout() {
        let result = call("Never", timeout: 0.2)
        guard case .failure(.timeout) = result else {
            return XCTFail("expected timeout, got \(String(describing: result))")
        }
        XCTAssertEqual(heldReplies.count, 1)
    }

    func testCallToMissingPeerFails() {
        let result = loop.call(client, "org.example.Nobody", "/x", "org.example.X", "M")
        XCTAssertEqual(remoteError(result)?.name, DBusRemoteError.Names.serviceUnknown)
    }

    func testCancelledCallNeverReports() {
        var reported = false
        let pending = client.call(
            destination: server.uniqueName, path: "/test/echo", interface: "org.example.Echo", method: "Echo"
        ) { _ in reported = true }
        pending.cancel()
        // A later call on the same connection completes, so the first reply had its chance.
        XCTAssertNotNil(call("Echo"))
        XCTAssertFalse(reported)
        XCTAssertTrue(pending.isFinished)
    }

    func testInvalidArgumentsFailWithoutSending() {
        let result = call("Echo", [.array(element: .string, [.int32(1)])])
        guard case .failure(.invalidValue) = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertTrue(received.isEmpty)
    }

    func testFileDescriptorsPassBothWays() throws {
        // Server to client: a pipe read end, already holding data.
        let reply = try XCTUnwrap(call("Pipe")).get()
        let readEnd = try XCTUnwrap(reply.first?.asFileDescriptor?.rawValue)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, 64) }
        XCTAssertEqual(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self), "from server")

        // Client to server: our pipe's write end; the server writes through it.
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let writeEnd = FileDescriptor(owning: ends[1])
        XCTAssertNoThrow(try XCTUnwrap(call("WriteInto", [.unixFD(writeEnd), .string("from client")])).get())
        writeEnd.close()
        let got = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, 64) }
        XCTAssertEqual(String(decoding: buffer.prefix(max(0, got)), as: UTF8.self), "from client")
    }

    func testDisconnectIsReported() {
        var disconnected = false
        client.onDisconnect { disconnected = true }
        bus.stop()
        XCTAssertTrue(loop.run(until: { disconnected }, timeout: 20))
        XCTAssertFalse(client.isConnected)
        let result = call("Echo")
        guard case .failure(.disconnected) = result else { return XCTFail("\(String(describing: result))") }
    }

    func testReleasingAConnectionIsClean() throws {
        weak var weakConnection: DBusConnection?
        do {
            let extra = try bus.connect(loop)
            weakConnection = extra
            _ = extra.subscribe(MatchRule(interface: "org.example.X")) { _ in }
            extra.call(destination: server.uniqueName, path: "/test/echo", interface: nil, method: "Never") { _ in }
        }
        XCTAssertNil(weakConnection)
        // The loop keeps working for the other connections.
        XCTAssertNotNil(try XCTUnwrap(call("Echo")).get())
    }
}
