import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// The Nordic UART Service next to the relay service: phone UART apps' lines become messages,
/// `send TEXT` reaches them as plain UTF-8 split for their link.
final class PeripheralUARTTests: XCTestCase {
    private let phone = BluetoothAddress("00:AA:01:05:00:01")!

    private func arrivals(_ actions: [PeripheralAction]) -> [ReceivedMessageReport] {
        actions.compactMap {
            if case .program(.deliver(let arrival)) = $0 { return arrival.report } else { return nil }
        }
    }

    func testAPhonesWritesBecomeLinesAcrossWritesAndAfterAPause() {
        var session = PeripheralSession.advertising()
        XCTAssertTrue(
            arrivals(session.handle(.uartWritten(Array("hel".utf8), from: phone, mtu: MTU(517)), at: 1))
                .isEmpty)
        let line = arrivals(
            session.handle(.uartWritten(Array("lo\r\n".utf8), from: phone, mtu: nil), at: 1.1))
        XCTAssertEqual(line.map(\.text), ["hello"])
        XCTAssertEqual(line.first?.via, .nus)
        XCTAssertEqual(line.first?.from, PeerName(.central, phone))
        XCTAssertEqual(line.first?.id, 1)
        _ = session.handle(.uartWritten(Array("no ending".utf8), from: phone, mtu: nil), at: 2)
        XCTAssertEqual(session.nextReassemblyDeadline, 2.5)
        XCTAssertEqual(arrivals(session.handle(.tick, at: 2.5)).map(\.text), ["no ending"])
        _ = session.handle(.uartWritten([0x61, 0xFF], from: phone, mtu: nil), at: 3)
        XCTAssertEqual(
            arrivals(session.handle(.disconnected(phone), at: 3.1)).map(\.text), ["a\\xFF"],
            "a phone that leaves ends its line; invalid UTF-8 is shown escaped")
    }

    /// A burst of 20 UART writes of 254 bytes of one-character lines from a stranger's app is at most 40
    /// messages, not 2 540: each app's lines are a message each up to 20 a second, then the rest of each write's
    /// lines one message; every line is there (issue 46, item 10).
    func testABurstOfLinesFromOneAppIsShownBoundedAndNothingIsLost() {
        // 20 writes of 254 bytes, "a\n" over and over, in a tenth of a second: 20 lines are a
        // message each, then each write's remaining lines one message; every line is there.
        var session = PeripheralSession.advertising()
        var texts: [String] = []
        for index in 0..<20 {
            let time = 1 + Double(index) * 0.005
            let write: [UInt8] = (0..<254).map { $0 % 2 == 0 ? 0x61 : 0x0A }
            texts += arrivals(session.handle(.uartWritten(write, from: phone, mtu: MTU(517)), at: time))
                .compactMap(\.text)
        }
        XCTAssertLessThanOrEqual(texts.count, 40, "not a line each")
        XCTAssertEqual(texts.joined(separator: "\n").split(separator: "\n").count, 20 * 127, "every line is there")
        // A second later, lines are a message each again.
        let later = arrivals(
            session.handle(.uartWritten(Array("one\ntwo\n".utf8), from: phone, mtu: nil), at: 3))
        XCTAssertEqual(later.map(\.text), ["one", "two"])
    }

    func testSendReachesAUARTAppAsUTF8SplitForItsLinkWithTheLineEnding() throws {
        var session = PeripheralSession.advertising()
        XCTAssertThrowsError(try session.send(Message(text: "x"), at: 0), "nobody listens yet")
        _ = session.handle(.uartNotifyStarted(from: phone, mtu: MTU(23)), at: 0)
        XCTAssertThrowsError(try session.notify(value: 5, at: 0), "counters are not for UART apps")
        let text = String(repeating: "räksmörgås 写真 🙂 ", count: 80)
        _ = try session.send(Message(text: text), at: 0)
        let values = session.drain().values
        XCTAssertTrue(values.allSatisfy { $0.count <= 18 }, "MTU 23 - 5")
        XCTAssertTrue(values.allSatisfy { String(validating: $0, as: UTF8.self) != nil }, "each value valid UTF-8")
        XCTAssertEqual(values.flatMap { $0 }, Array(text.utf8) + [0x0A])
        XCTAssertEqual(PeripheralStatus(session: session).uart?.centrals, [phone])
        XCTAssertFalse(
            PeripheralStatus(session: session).centrals.contains { $0.address == phone },
            "listed apart from relay centrals")
    }

    func testARelayCentralAndAPhoneBothGetTheText() throws {
        var settings = PeripheralSettings()
        settings.uart = .crlf
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)), at: 0)
        _ = session.handle(.uartNotifyStarted(from: nil, mtu: nil), at: 0)
        _ = try session.send(Message(text: "hi there"), at: 0)
        let values = session.drain().values
        XCTAssertEqual(reassemble(values.filter { $0.first == 0xB1 }), [Message(text: "hi there")])
        XCTAssertEqual(values.filter { $0.first != 0xB1 }, [Array("hi there\r\n".utf8)])
    }

    func testWithoutTheServiceUARTWritesAreIgnored() {
        var settings = PeripheralSettings()
        settings.uart = nil
        var session = PeripheralSession.advertising(settings)
        XCTAssertTrue(
            arrivals(session.handle(.uartWritten(Array("x\n".utf8), from: phone, mtu: nil), at: 0)).isEmpty)
        _ = session.handle(.uartNotifyStarted(from: phone, mtu: nil), at: 0)
        XCTAssertThrowsError(try session.send(Message(text: "x"), at: 0))
        XCTAssertNil(PeripheralStatus(session: session).uart)
    }
}
