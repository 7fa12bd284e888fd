import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import RelayEndpoint
@testable import relay_peripheral

/// Only a central's data frames that bring new bytes widen what the peripheral keeps in flight to
/// it (`TransferSender.heardData`): a stranger's frames of a transfer the peripheral ignores, or
/// the same bytes again, do not (issue 46, item 6).
/// Before, a stranger's ignored or repeated frames raised that flight from 0.5 s to 4 s.
final class PeripheralHeardDataTests: XCTestCase {
    func testOnlyDataFramesWithNewBytesCountAsTheCentralSending() throws {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.connected(centralA))
        let hello = SessionFrame.hello(
            Hello(token: SessionToken(0xA)!, address: centralA, window: 65536, next: TransferID(1))
        ).encoded
        _ = session.handle(.sessionWritten(hello, from: centralA, mtu: MTU(517)), at: 0)
        let number = try XCTUnwrap(session.delivery.sessions.values.first?.number)
        func write(_ transfer: UInt16, _ offset: UInt32, at time: Double) {
            let frame = SessionFrame.data(
                DataFrame(
                    session: number, transfer: TransferID(transfer), offset: offset,
                    bytes: [UInt8](repeating: 1, count: 100)))
            _ = session.handle(.sessionWritten(frame.encoded, from: centralA, mtu: MTU(517)), at: time)
        }
        // Frames of a transfer it does not expect (the central's next is 1): no.
        write(7, 0, at: 1)
        XCTAssertNil(session.delivery.outgoing.sender.peers[number]?.dataHeardAt)
        // Its message's first bytes: yes; the same bytes again a second later: the time stays.
        write(1, 0, at: 2)
        XCTAssertEqual(session.delivery.outgoing.sender.peers[number]?.dataHeardAt, 2)
        write(1, 0, at: 3)
        XCTAssertEqual(session.delivery.outgoing.sender.peers[number]?.dataHeardAt, 2)
    }
}
