import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// Compact data frames on the peripheral (docs/protocol.md, "Compact data frames"): they go only
/// to the one central in session, and a central's compact frames reach only its own message.
final class PeripheralCompactFrameTests: XCTestCase {
    private struct NoWelcome: Error {}
    private static let tokenA = SessionToken(0xA)!
    private static let tokenB = SessionToken(0xB)!

    private func session() -> PeripheralSession {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        return PeripheralSession.advertising(settings)
    }

    /// Says hello from `address` (its hello of `version`) at MTU 23; the session number welcomed.
    private func greet(
        _ session: inout PeripheralSession, _ token: SessionToken, _ address: BluetoothAddress, version: UInt8 = 3
    ) throws -> SessionNumber {
        _ = session.handle(.connected(address))
        let hello = Hello(version: version, token: token, address: address, window: 65536, next: TransferID(1))
        _ = session.handle(.sessionWritten(SessionFrame.hello(hello).encoded, from: address, mtu: MTU(23)), at: 0)
        for value in session.drain().values {
            if case .frame(.welcome(let welcome)) = try? SessionValue(parsing: value), welcome.central == token {
                return welcome.session
            }
        }
        throw NoWelcome()
    }

    private func acknowledge(
        _ session: inout PeripheralSession, _ number: SessionNumber, from address: BluetoothAddress, received: Int,
        at time: Double
    ) {
        let ack = Acknowledgement(
            status: .receiving, session: number, transfer: TransferID(1), received: UInt32(received))
        _ = session.handle(
            .sessionWritten(SessionFrame.acknowledgement(ack).encoded, from: address, mtu: MTU(23)),
            at: time)
    }

    private func compactCount(_ values: [[UInt8]]) -> Int {
        values.filter { if case .compact = try? SessionValue(parsing: $0) { true } else { false } }.count
    }

    func testOneCentralInSessionGetsCompactFramesOnceItAcknowledged() throws {
        var session = session()
        let number = try greet(&session, Self.tokenA, centralA)
        _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 2000)), at: 1)
        let first = session.drain().values
        XCTAssertEqual(compactCount(first), 0, "nothing compact before the central acknowledged the message")
        acknowledge(&session, number, from: centralA, received: 40, at: 1.2)
        let then = session.drain().values
        XCTAssertGreaterThan(compactCount(then), 0)
        XCTAssertTrue(then.allSatisfy { $0.count <= 20 }, "every value fits MTU 23")
    }

    func testTwoCentralsInSessionGetNoCompactFrame() throws {
        var session = session()
        let a = try greet(&session, Self.tokenA, centralA)
        let b = try greet(&session, Self.tokenB, centralB)
        _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 2000)), at: 1)
        _ = session.drain()
        acknowledge(&session, a, from: centralA, received: 40, at: 1.2)
        acknowledge(&session, b, from: centralB, received: 40, at: 1.2)
        XCTAssertEqual(compactCount(session.drain().values), 0, "every subscriber hears a notification")
    }

    func testACentralOfTheReleaseBeforeGetsNoCompactFrameAndMayNotSendOne() throws {
        var session = session()
        let number = try greet(&session, Self.tokenA, centralA, version: 2)
        _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 2000)), at: 1)
        _ = session.drain()
        acknowledge(&session, number, from: centralA, received: 40, at: 1.2)
        XCTAssertEqual(compactCount(session.drain().values), 0)
        let events = session.handle(
            .sessionWritten(
                CompactDataFrame(offset: 0, bytes: [1, 2, 3]).encoded, from: centralA, mtu: MTU(23)),
            at: 2
        ).events
        XCTAssertEqual(events.map(\.name), ["error"], "\(events)")
        XCTAssertTrue("\(events)".contains("did not agree on version 3"), "\(events)")
    }

    /// A compact frame names no session: the writer's is the one bluetoothd names, so a stranger's
    /// compact frames cannot reach another central's message.
    func testACentralsCompactFramesReachOnlyItsOwnMessage() throws {
        var session = session()
        let a = try greet(&session, Self.tokenA, centralA)
        _ = try greet(&session, Self.tokenB, centralB)
        let message = Message(text: "from A, eighteen bytes at a time, in compact frames")
        let stream = MessageHeader(of: message).encoded + message.bytes
        let head = DataFrame(session: a, transfer: TransferID(1), offset: 0, bytes: Array(stream[0..<10]))
        _ = session.handle(
            .sessionWritten(SessionFrame.data(head).encoded, from: centralA, mtu: MTU(23)), at: 1)
        // B writes garbage compact frames at the offsets A's bytes will take.
        for offset in stride(from: 10, to: stream.count, by: 18) {
            _ = session.handle(
                .sessionWritten(
                    CompactDataFrame(offset: offset, bytes: [UInt8](repeating: 0xEE, count: 18)).encoded,
                    from: centralB, mtu: MTU(23)), at: 1.1)
        }
        var events: [PeripheralEvent] = []
        var offset = 10
        while offset < stream.count {
            let count = min(18, stream.count - offset) == 2 ? 1 : min(18, stream.count - offset)
            events +=
                session.handle(
                    .sessionWritten(
                        CompactDataFrame(offset: offset, bytes: Array(stream[offset..<(offset + count)])).encoded,
                        from: centralA, mtu: MTU(23)), at: 1.2
                ).events
            offset += count
        }
        XCTAssertEqual(
            events.filter { $0.name == "message" }.count, 1, "A's message arrives once, intact: \(events.map(\.name))")
        XCTAssertTrue("\(events)".contains("eighteen bytes at a time"))
    }
}
