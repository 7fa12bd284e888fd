import RelayDBus
import RelayProtocol
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import RelayBlueZ

/// The pairing agent on a private bus with bluezoo: registration with `AgentManager1`, and calls
/// from anyone but bluetoothd refused. (bluezoo pairs only without an agent's input, so the
/// passkey itself is tested against real bluetoothd: scenarios/vm/scenario-secure.sh.)
final class BluezooPairingAgentTests: BluezooTestCase {
    func testTheAgentRegistersAsDefaultAndAStrangerCannotCallIt() throws {
        let peripheral = try startedClient()
        let agent = PairingAgent(client: peripheral, capability: .displayOnly)
        var requests: [String] = []
        agent.onRequest = { requests.append("\($0)") }
        try complete("RegisterAgent + RequestDefaultAgent") { agent.register(asDefault: true, completion: $0) }
        XCTAssertTrue(agent.isRegistered)
        // Registering again (bluetoothd restarted, or twice) is not an error.
        try complete("RegisterAgent again") { agent.register(asDefault: true, completion: $0) }

        let stranger = try bus.connect(loop)
        var results: [Result<[DBusValue], DBusError>] = []
        let calls: [(String, [DBusValue])] = [
            ("DisplayPasskey", [.objectPath("/org/bluez/hci0/dev_00_00_00_22_22_22"), .uint32(123_456), .uint16(0)]),
            ("RequestPasskey", [.objectPath("/org/bluez/hci0/dev_00_00_00_22_22_22")]),
            ("Cancel", []),
        ]
        for (method, arguments) in calls {
            stranger.call(
                destination: peripheral.connection.uniqueName, path: agent.path, interface: BlueZInterface.agent,
                method: method, arguments: arguments
            ) { results.append($0) }
        }
        wait("the stranger's replies") { results.count == calls.count }
        for result in results {
            guard case .failure(.remote(let error)) = result else { return XCTFail("not refused: \(result)") }
            XCTAssertEqual(error.name, DBusRemoteError.Names.accessDenied)
        }
        XCTAssertEqual(requests, [], "nothing a stranger sends reaches the program")
    }
}
