import Foundation
import RelayDBus
import RelayRuntime
import RelayTestSupport
import XCTest

/// The shape of relay's hot path on the peripheral: bluetoothd calls `WriteValue(aya{sv})` once
/// per frame, back to back. Every call must reach the handler with its bytes intact, in order,
/// and get exactly one reply.
final class WriteValueBurstTests: XCTestCase {
    func testBackToBackWriteValueCallsArriveInOrderAndAreAllAnswered() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let loop = EventLoop()
        let server = try bus.connect(loop)
        let client = try bus.connect(loop)
        var received: [[UInt8]] = []
        let characteristic = ExportedObject(
            path: "/app/service0/char0",
            interfaces: [
                ExportedInterface(
                    "org.bluez.GattCharacteristic1",
                    methods: [
                        ExportedMethod("WriteValue", input: "aya{sv}") { call in
                            received.append(call.arguments[0].asBytes ?? [])
                            return .success([])
                        }
                    ])
            ])
        // As in the programs: only the owner of the BlueZ name may call (checked on every call).
        XCTAssertNotNil(loop.wait { done in client.requestName("org.example.FakeBlueZ") { done($0) } })
        server.exportPolicy = .owner(of: "org.example.FakeBlueZ")
        try server.export(characteristic)
        let count = Int(ProcessInfo.processInfo.environment["WRITE_BURST_COUNT"] ?? "") ?? 300
        let options: DBusValue = .dictionary(
            key: .string, value: .variant,
            [
                (key: .string("device"), value: .variant(.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01"))),
                (key: .string("link"), value: .variant(.string("LE"))),
                (key: .string("mtu"), value: .variant(.uint16(517))),
                (key: .string("type"), value: .variant(.string("command"))),
            ])
        var replies = 0
        var failures = 0
        var next = 0
        var inFlight = 0
        // bluetoothd keeps calling while earlier calls are unanswered; the bus limits pending
        // replies per connection (128 here), so keep 64 in flight.
        func sendMore() {
            while inFlight < 64, next < count {
                let frame = [UInt8](repeating: UInt8(next & 0xff), count: 510)
                next += 1
                inFlight += 1
                client.call(
                    destination: server.uniqueName, path: "/app/service0/char0",
                    interface: "org.bluez.GattCharacteristic1", method: "WriteValue",
                    arguments: [.bytes(frame), options],
                    timeout: 60
                ) { result in
                    inFlight -= 1
                    if case .success = result { replies += 1 } else { failures += 1 }
                    sendMore()
                }
            }
        }
        sendMore()
        XCTAssertTrue(loop.run(until: { replies + failures == count }, timeout: 120))
        XCTAssertEqual(failures, 0)
        XCTAssertEqual(received.count, count)
        for (index, bytes) in received.enumerated() {
            XCTAssertEqual(bytes, [UInt8](repeating: UInt8(index & 0xff), count: 510), "call \(index)")
            if bytes.first != UInt8(index & 0xff) { break }
        }
        withExtendedLifetime(characteristic) {}
    }
}
