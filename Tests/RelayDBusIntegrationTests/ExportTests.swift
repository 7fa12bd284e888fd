import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

/// Exported objects: Properties, ObjectManager, Introspectable and the caller policy.
final class ExportTests: XCTestCase {
    private var loop: EventLoop!
    private var bus: PrivateBus!
    private var server: DBusConnection!
    private var trusted: DBusConnection!
    private var intruder: DBusConnection!
    private var root: ExportedObject!
    private var characteristic: ExportedObject!
    private var value: [UInt8] = [1, 2, 3, 4]
    private var notifying = false
    private var denied: [DeniedCall] = []

    private let gattInterface = "org.example.GattCharacteristic1"
    private let trustedName = "org.example.Trusted"

    override func setUpWithError() throws {
        loop = EventLoop()
        bus = try PrivateBus()
        server = try bus.connect(loop)
        trusted = try bus.connect(loop)
        intruder = try bus.connect(loop)
        XCTAssertNotNil(loop.wait { done in self.trusted.requestName(self.trustedName) { done($0) } })
        server.exportPolicy = .owner(of: trustedName)
        server.onAccessDenied = { [unowned self] in self.denied.append($0) }

        root = ExportedObject(path: "/app", isObjectManager: true)
        try server.export(root)
        characteristic = ExportedObject(path: "/app/service0/char0", interfaces: [makeCharacteristic()])
        try server.export(characteristic)
    }

    override func tearDown() {
        server = nil
        trusted = nil
        intruder = nil
        root = nil
        characteristic = nil
        bus.stop()
        bus = nil
        loop = nil
    }

    private func makeCharacteristic() -> ExportedInterface {
        ExportedInterface(
            gattInterface,
            methods: [
                ExportedMethod("WriteValue", input: "aya{sv}") { [unowned self] call in
                    self.value = call.arguments[0].asBytes ?? []
                    return .success([])
                },
                ExportedMethod("ReadValue", input: "a{sv}", output: "ay") { [unowned self] _ in
                    .success([.bytes(self.value)])
                },
            ],
            properties: [
                ExportedProperty("UUID", signature: .string) { .string("dfb13451-1740-4f8a-b0f0-7c20d79e8bdf") },
                ExportedProperty("Value", signature: "ay") { [unowned self] in .bytes(self.value) },
                ExportedProperty("Flags", signature: "as") { .strings(["read", "notify"]) },
                ExportedProperty("Absent", signature: .string) { nil },
                ExportedProperty(
                    "Notifying", signature: .boolean, get: { [unowned self] in .boolean(self.notifying) },
                    set: { [unowned self] newValue, _ in
                        self.notifying = newValue.asBool ?? false
                        return .success(())
                    }),
            ],
            signals: [ExportedSignal("Changed", signature: "ay")])
    }

    private func call(
        _ connection: DBusConnection, _ path: ObjectPath, _ interface: String, _ method: String,
        _ arguments: [DBusValue] = []
    ) -> Result<[DBusValue], DBusError>? {
        loop.call(connection, server.uniqueName, path, interface, method, arguments)
    }

    private func properties(
        _ method: String, _ arguments: [DBusValue], as caller: DBusConnection? = nil
    )
        -> Result<[DBusValue], DBusError>?
    {
        call(caller ?? trusted, "/app/service0/char0", "org.freedesktop.DBus.Properties", method, arguments)
    }

    func testPropertiesGetAndGetAll() throws {
        let got = try XCTUnwrap(properties("Get", [.string(gattInterface), .string("Value")])).get()
        XCTAssertEqual(got, [.variant(.bytes([1, 2, 3, 4]))])
        let all = try XCTUnwrap(try XCTUnwrap(properties("GetAll", [.string(gattInterface)])).get().first?.asDictionary)
        XCTAssertEqual(Set(all.keys), ["UUID", "Value", "Flags", "Notifying"], "absent properties are left out")
        XCTAssertEqual(all["Flags"]?.asStrings, ["read", "notify"])
        XCTAssertEqual(
            remoteError(properties("Get", [.string(gattInterface), .string("Nope")]))?.name,
            DBusRemoteError.Names.unknownProperty)
        XCTAssertEqual(
            remoteError(properties("GetAll", [.string("org.example.Nope")]))?.name,
            DBusRemoteError.Names.unknownInterface)
        XCTAssertEqual(
            remoteError(properties("Get", [.string(gattInterface)]))?.name,
            DBusRemoteError.Names.invalidArgs)
    }

    func testPropertiesSetEmitsPropertiesChanged() throws {
        var changes: [DBusSignal] = []
        let subscription = trusted.subscribe(
            MatchRule(
                sender: server.uniqueName, path: "/app/service0/char0",
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        ) { changes.append($0) }
        XCTAssertNoThrow(
            try XCTUnwrap(properties("Set", [.string(gattInterface), .string("Notifying"), .variant(.boolean(true))]))
                .get())
        XCTAssertTrue(notifying)
        XCTAssertEqual(
            remoteError(properties("Set", [.string(gattInterface), .string("UUID"), .variant(.string("x"))]))?.name,
            DBusRemoteError.Names.propertyReadOnly)
        XCTAssertEqual(
            remoteError(properties("Set", [.string(gattInterface), .string("Notifying"), .variant(.string("x"))]))?
                .name,
            DBusRemoteError.Names.invalidArgs)

        // The notification path: explicit values.
        try characteristic.emitPropertiesChanged(interface: gattInterface, changed: ["Value": .bytes([9, 9])])
        XCTAssertTrue(loop.run(until: { changes.count >= 2 }, timeout: 20))
        XCTAssertEqual(changes[0].arguments[0], .string(gattInterface))
        XCTAssertEqual(changes[0].arguments[1].asDictionary, ["Notifying": .boolean(true)])
        XCTAssertEqual(changes[0].arguments[2].asStrings, [])
        XCTAssertEqual(changes[1].arguments[1].asDictionary?["Value"]?.asBytes, [9, 9])
        withExtendedLifetime(subscription) {}
    }

    func testGetManagedObjectsAndInterfacesAddedRemoved() throws {
        let reply = try XCTUnwrap(call(trusted, "/app", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"))
            .get()
        XCTAssertEqual(reply.signature, "a{oa{sa{sv}}}")
        let objects = try XCTUnwrap(reply.first?.asManagedObjects)
        XCTAssertEqual(Set(objects.keys), ["/app/service0/char0"], "the manager itself is not listed")
        XCTAssertEqual(objects["/app/service0/char0"]?[gattInterface]?["Value"]?.asBytes, [1, 2, 3, 4])

        var added: [DBusSignal] = []
        var removed: [DBusSignal] = []
        let onAdded = trusted.subscribe(
            MatchRule(
                path: "/app", interface: "org.freedesktop.DBus.ObjectManager",
                member: "InterfacesAdded")
        ) { added.append($0) }
        let onRemoved = trusted.subscribe(
            MatchRule(
                path: "/app", interface: "org.freedesktop.DBus.ObjectManager",
                member: "InterfacesRemoved")
        ) { removed.append($0) }
        _ = call(trusted, "/app", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")  // match rules in place
        let service = ExportedObject(
            path: "/app/service0",
            interfaces: [
                ExportedInterface(
                    "org.example.GattService1",
                    properties: [
                        ExportedProperty("Primary", signature: .boolean) { .boolean(true) }
                    ])
            ])
        try server.export(service)
        server.unexport("/app/service0")
        XCTAssertTrue(loop.run(until: { !added.isEmpty && !removed.isEmpty }, timeout: 20))
        XCTAssertEqual(added[0].arguments[0], .objectPath("/app/service0"))
        XCTAssertEqual(added[0].arguments[1].asInterfaceMap?["org.example.GattService1"]?["Primary"], .boolean(true))
        XCTAssertEqual(removed[0].arguments, [.objectPath("/app/service0"), .strings(["org.example.GattService1"])])
        XCTAssertThrowsError(try server.export(ExportedObject(path: "/app/service0/char0")))
        withExtendedLifetime((onAdded, onRemoved)) {}
    }

    func testIntrospection() throws {
        let xml = try XCTUnwrap(
            try XCTUnwrap(call(trusted, "/app/service0/char0", "org.freedesktop.DBus.Introspectable", "Introspect"))
                .get().first?.asString)
        XCTAssertTrue(xml.contains("<interface name=\"\(gattInterface)\">"))
        XCTAssertTrue(xml.contains("<method name=\"WriteValue\">"))
        XCTAssertTrue(xml.contains("<arg type=\"a{sv}\" direction=\"in\"/>"))
        XCTAssertTrue(xml.contains("<property name=\"Notifying\" type=\"b\" access=\"readwrite\"/>"))
        XCTAssertTrue(xml.contains("<signal name=\"Changed\">"))
        XCTAssertTrue(xml.contains("org.freedesktop.DBus.Properties"))
        let parent = try XCTUnwrap(
            try XCTUnwrap(call(trusted, "/app", "org.freedesktop.DBus.Introspectable", "Introspect")).get().first?
                .asString)
        XCTAssertTrue(parent.contains("<node name=\"service0\"/>"))
        XCTAssertTrue(parent.contains("org.freedesktop.DBus.ObjectManager"))
        // A path between exported objects still introspects, with its child.
        let middle = try XCTUnwrap(
            try XCTUnwrap(call(trusted, "/app/service0", "org.freedesktop.DBus.Introspectable", "Introspect")).get()
                .first?.asString)
        XCTAssertTrue(middle.contains("<node name=\"char0\"/>"))
    }

    func testForeignCallerIsDeniedAndStateIsUnchanged() throws {
        let write = call(
            intruder, "/app/service0/char0", gattInterface, "WriteValue",
            [.bytes([0xde, 0xad]), .stringDict([:])])
        XCTAssertEqual(remoteError(write)?.name, DBusRemoteError.Names.accessDenied)
        XCTAssertEqual(value, [1, 2, 3, 4])
        XCTAssertEqual(
            remoteError(properties("Get", [.string(gattInterface), .string("Value")], as: intruder))?.name,
            DBusRemoteError.Names.accessDenied)
        XCTAssertEqual(
            remoteError(
                properties(
                    "Set", [.string(gattInterface), .string("Notifying"), .variant(.boolean(true))], as: intruder))?
                .name,
            DBusRemoteError.Names.accessDenied)
        XCTAssertFalse(notifying)
        XCTAssertEqual(
            remoteError(call(intruder, "/app", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"))?.name,
            DBusRemoteError.Names.accessDenied)
        XCTAssertEqual(
            remoteError(call(intruder, "/app", "org.freedesktop.DBus.Introspectable", "Introspect"))?.name,
            DBusRemoteError.Names.accessDenied)
        XCTAssertEqual(denied.count, 5)
        XCTAssertEqual(
            denied.first,
            DeniedCall(
                sender: intruder.uniqueName, path: "/app/service0/char0",
                interface: gattInterface, member: "WriteValue"))

        // The owner of the trusted name is allowed.
        XCTAssertNoThrow(
            try XCTUnwrap(
                call(
                    trusted, "/app/service0/char0", gattInterface, "WriteValue",
                    [.bytes([7]), .stringDict([:])])
            ).get())
        XCTAssertEqual(value, [7])
    }

    func testPolicyFollowsTheNameOwner() throws {
        // The trusted connection gives the name up and the intruder takes it: roles swap.
        XCTAssertNotNil(loop.wait { done in self.trusted.releaseName(self.trustedName) { done($0) } })
        XCTAssertNotNil(loop.wait { done in self.intruder.requestName(self.trustedName) { done($0) } })
        let intruderName = intruder.uniqueName
        let readAsNewOwner = { [unowned self] in
            self.call(self.intruder, "/app/service0/char0", self.gattInterface, "ReadValue", [.stringDict([:])])
        }
        // NameOwnerChanged reaches the server before our later call does (the bus keeps order).
        XCTAssertEqual(try XCTUnwrap(readAsNewOwner()).get(), [.bytes([1, 2, 3, 4])])
        XCTAssertEqual(
            remoteError(call(trusted, "/app/service0/char0", gattInterface, "ReadValue", [.stringDict([:])]))?.name,
            DBusRemoteError.Names.accessDenied)
        XCTAssertEqual(denied.last?.sender, trusted.uniqueName)
        XCTAssertNotEqual(denied.last?.sender, intruderName)
    }

    func testNobodyIsAllowedWhileTheNameHasNoOwner() throws {
        XCTAssertNotNil(loop.wait { done in self.trusted.releaseName(self.trustedName) { done($0) } })
        _ = call(intruder, "/app", "org.freedesktop.DBus.Introspectable", "Introspect")
        XCTAssertEqual(
            remoteError(call(trusted, "/app", "org.freedesktop.DBus.Introspectable", "Introspect"))?.name,
            DBusRemoteError.Names.accessDenied)
    }
}
