import XCTest

@testable import RelayDBus

/// Match rule text and local routing decisions, without a bus.
final class MatchRuleTests: XCTestCase {
    private func signal(
        sender: String = ":1.5", path: ObjectPath = "/org/bluez/hci0",
        interface: String = "org.freedesktop.DBus.Properties", member: String = "PropertiesChanged",
        arguments: [DBusValue] = [.string("org.bluez.Adapter1")]
    ) -> DBusSignal {
        DBusSignal(sender: sender, path: path, interface: interface, member: member, arguments: arguments)
    }

    func testRuleString() {
        let rule = MatchRule(
            sender: "org.bluez", pathNamespace: "/org/bluez", interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged", arg0: "it's")
        XCTAssertEqual(
            rule.ruleString,
            "type='signal',sender='org.bluez',path_namespace='/org/bluez',"
                + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='it'\\''s'")
        XCTAssertEqual(MatchRule().ruleString, "type='signal'")
    }

    func testWellKnownSenderRoutesByResolvedOwner() {
        let rule = MatchRule(sender: "org.bluez")
        XCTAssertTrue(rule.matches(signal(sender: ":1.5"), senderOwner: .unique(":1.5")))
        XCTAssertFalse(rule.matches(signal(sender: ":1.9"), senderOwner: .unique(":1.5")))
        XCTAssertFalse(rule.matches(signal(sender: ":1.9"), senderOwner: .none))
        XCTAssertTrue(rule.matches(signal(sender: ":1.9"), senderOwner: .unknown), "the bus already filtered")
    }

    func testPathInterfaceMemberAndArg0() {
        XCTAssertTrue(MatchRule(path: "/org/bluez/hci0").matches(signal(), senderOwner: .unknown))
        XCTAssertFalse(MatchRule(path: "/org/bluez").matches(signal(), senderOwner: .unknown))
        XCTAssertTrue(MatchRule(pathNamespace: "/org/bluez").matches(signal(), senderOwner: .unknown))
        XCTAssertTrue(MatchRule(pathNamespace: "/org/bluez/hci0").matches(signal(), senderOwner: .unknown))
        XCTAssertFalse(MatchRule(pathNamespace: "/org/bluez/hci").matches(signal(), senderOwner: .unknown))
        XCTAssertFalse(MatchRule(interface: "org.bluez.Device1").matches(signal(), senderOwner: .unknown))
        XCTAssertFalse(MatchRule(member: "InterfacesAdded").matches(signal(), senderOwner: .unknown))
        XCTAssertTrue(MatchRule(arg0: "org.bluez.Adapter1").matches(signal(), senderOwner: .unknown))
        XCTAssertFalse(MatchRule(arg0: "org.bluez.Device1").matches(signal(), senderOwner: .unknown))
        XCTAssertFalse(MatchRule(arg0: "x").matches(signal(arguments: []), senderOwner: .unknown))
    }
}
