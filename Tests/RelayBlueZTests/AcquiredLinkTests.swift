import Glibc
import RelayDBus
import RelayProtocol
import RelayRuntime
import XCTest

@testable import RelayBlueZ

final class AcquiredLinkTests: XCTestCase {
    private func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let rc = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds)
        XCTAssertEqual(rc, 0)
        return (fds[0], fds[1])
    }

    func testDatagramsKeepTheirBoundariesBothWays() throws {
        let loop = EventLoop()
        let (a, b) = try socketPair()
        let left = AcquiredLink(fd: a, mtu: MTU(100)!, loop: loop)
        let right = AcquiredLink(fd: b, mtu: MTU(100)!, loop: loop)
        XCTAssertEqual(left.maximumValueLength, 97)
        var received: [[UInt8]] = []
        right.onEvent = { if case .received(let bytes) = $0 { received.append(bytes) } }
        XCTAssertEqual(left.send([1, 2, 3, 4]), .sent)
        XCTAssertEqual(left.send(Array(repeating: 9, count: 97)), .sent)
        XCTAssertTrue(loop.run(until: { received.count == 2 }, timeout: 5))
        XCTAssertEqual(received, [[1, 2, 3, 4], Array(repeating: 9, count: 97)])
    }

    func testFullSocketReportsWouldBlockThenWritable() throws {
        let loop = EventLoop()
        let (a, b) = try socketPair()
        let writer = AcquiredLink(fd: a, mtu: MTU(517)!, loop: loop)
        var events: [AcquiredLink.Event] = []
        writer.onEvent = { events.append($0) }
        var sent = 0
        var result = AcquiredLink.SendResult.sent
        while sent < 100_000 {
            result = writer.send(Array(repeating: UInt8(sent & 0xff), count: 512))
            if result != .sent { break }
            sent += 1
        }
        XCTAssertEqual(result, .wouldBlock)
        XCTAssertGreaterThan(sent, 0)
        // Drain the other end by hand so the writer becomes writable again.
        var buffer = [UInt8](repeating: 0, count: 1024)
        var drained = 0
        while recv(b, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 { drained += 1 }
        XCTAssertEqual(drained, sent)
        XCTAssertTrue(loop.run(until: { events.contains(.writable) }, timeout: 5))
        XCTAssertEqual(writer.send([1]), .sent)
        close(b)
    }

    /// The events of a link whose reads answer `answers` in turn (a count, and errno when it is
    /// -1; a positive count reads `value`) until it closes.
    private func events(reading answers: [(Int, Int32)], value: [UInt8] = [7, 8, 9]) throws -> [AcquiredLink.Event] {
        let loop = EventLoop()
        let (a, b) = try socketPair()
        defer { close(b) }
        let link = AcquiredLink(fd: a, mtu: MTU.default, loop: loop)
        var answers = answers
        link.receive = { _, buffer in
            let (count, code) = answers.removeFirst()
            if count > 0 { buffer.copyBytes(from: value) }
            errno = code
            return count
        }
        var events: [AcquiredLink.Event] = []
        link.onEvent = { events.append($0) }
        XCTAssertEqual(send(b, [1], 1, 0), 1, "readable")
        XCTAssertTrue(loop.run(until: { events.contains(.closed) }, timeout: 5))
        XCTAssertFalse(link.isOpen)
        return events
    }

    func testDatagramsQueuedBehindAnErrorAreReadBeforeTheLinkCloses() throws {
        // As an L2CAP channel whose peer sent its last value and hung up: the error first, then
        // the value, then the end.
        XCTAssertEqual(try events(reading: [(-1, ECONNRESET), (3, 0), (0, 0)]), [.received([7, 8, 9]), .closed])
    }

    /// The kernel reports an L2CAP channel's hang-up (end of file, or ECONNRESET) ahead of a value still
    /// queued on it, such as the final acknowledgement a central sends just before it disconnects: relay reads
    /// on after an end or an error until a second read finds nothing.
    func testDatagramsQueuedBehindAnEndOfFileAreReadBeforeTheLinkCloses() throws {
        // Bluetooth's recvmsg turns the pending ECONNRESET into 0 while the value is still queued.
        XCTAssertEqual(try events(reading: [(0, 0), (3, 0), (0, 0)]), [.received([7, 8, 9]), .closed])
    }

    func testAnErrorWithNothingQueuedBehindItClosesTheLink() throws {
        XCTAssertEqual(try events(reading: [(-1, ECONNRESET), (-1, EAGAIN)]), [.closed])
    }

    func testPeerCloseReportsClosedAndSendFails() throws {
        let loop = EventLoop()
        let (a, b) = try socketPair()
        let link = AcquiredLink(fd: a, mtu: MTU.default, loop: loop)
        var closed = false
        link.onEvent = { if $0 == .closed { closed = true } }
        close(b)
        XCTAssertTrue(loop.run(until: { closed }, timeout: 5))
        XCTAssertFalse(link.isOpen)
        XCTAssertEqual(link.send([1]), .failed(0))
    }
}
