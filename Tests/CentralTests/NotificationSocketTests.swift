import Foundation
import RelayBlueZ
import RelayProtocol
import RelayRuntime
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The inbox between the reader thread and the loop.
final class DatagramInboxTests: XCTestCase {
    func testKeepsOrderAndWakesOncePerBatchTaken() {
        let inbox = DatagramInbox()
        XCTAssertTrue(inbox.append([[1], [2]]), "the first append wakes the consumer")
        XCTAssertFalse(inbox.append([[3]]), "no second wake before the consumer took the first batch")
        XCTAssertEqual(inbox.count, 3)
        XCTAssertEqual(inbox.take(), DatagramInbox.Batch(datagrams: [[1], [2], [3]], ended: false))
        XCTAssertEqual(inbox.count, 0)
        XCTAssertTrue(inbox.append([[4]]), "after a take, the next append wakes again")
        XCTAssertEqual(inbox.peakCount, 3)
    }

    func testAnEmptyAppendNeitherQueuesNorWakes() {
        let inbox = DatagramInbox()
        XCTAssertFalse(inbox.append([]))
        XCTAssertEqual(inbox.take(), DatagramInbox.Batch(datagrams: [], ended: false))
    }

    func testFinishWakesOnceAndNothingFollowsIt() {
        let inbox = DatagramInbox()
        XCTAssertTrue(inbox.append([[1]]))
        XCTAssertFalse(inbox.finish(), "the consumer is already due to wake")
        XCTAssertFalse(inbox.append([[2]]), "nothing is queued after the end")
        XCTAssertEqual(inbox.take(), DatagramInbox.Batch(datagrams: [[1]], ended: true))
        XCTAssertFalse(inbox.finish(), "finishing twice is harmless")
        XCTAssertEqual(inbox.take(), DatagramInbox.Batch(datagrams: [], ended: true))
    }

    func testFinishAloneWakes() {
        let inbox = DatagramInbox()
        XCTAssertTrue(inbox.finish())
        XCTAssertEqual(inbox.take(), DatagramInbox.Batch(datagrams: [], ended: true))
    }

    func testAppendsFromAnotherThreadAllArriveInOrder() {
        let inbox = DatagramInbox()
        let total = 10_000
        let producer = Thread {
            for index in 0..<total { inbox.append([[UInt8(index & 0xFF), UInt8(index >> 8 & 0xFF)]]) }
            inbox.finish()
        }
        producer.start()
        var received: [[UInt8]] = []
        var ended = false
        while !ended {
            let batch = inbox.take()
            received += batch.datagrams
            ended = batch.ended
            if !ended { sched_yield() }
        }
        XCTAssertEqual(received.count, total)
        XCTAssertEqual(received, (0..<total).map { [UInt8($0 & 0xFF), UInt8($0 >> 8 & 0xFF)] })
    }
}

/// An `AcquireNotify`-like socket (SOCK_SEQPACKET pair) read by `NotificationSocket`.
final class NotificationSocketTests: XCTestCase {
    /// A connected SEQPACKET pair: [ours (the reader's), bluetoothd's end].
    private func socketPair() throws -> (reader: Int32, sender: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0 else {
            throw XCTSkip("socketpair failed: errno \(errno)")
        }
        return (ends[0], ends[1])
    }

    private func datagram(_ index: Int, length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) }
    }

    /// The sender blocks at most 20 s on a full socket (then fails instead of hanging the test).
    private func setSendTimeout(_ fd: Int32) {
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func testTheSocketIsEmptiedWhileTheLoopDoesNotTurn() throws {
        let (reader, sender) = try socketPair()
        defer { close(sender) }
        setSendTimeout(sender)
        // Keep the kernel's buffer small so that an unread socket fills after a few datagrams.
        var small: Int32 = 4096
        _ = setsockopt(sender, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let loop = EventLoop()
        let socket = try NotificationSocket(fd: reader, mtu: MTU(517)!, loop: loop)
        var received: [[UInt8]] = []
        socket.onEvent = { event in
            if case .received(let value) = event { received.append(value) }
        }
        // 2000 values of 514 bytes (about 1 MiB): far more than the socket holds. The loop does
        // not run meanwhile, like a busy main thread: only the reader thread can make room.
        let count = 2000
        for index in 0..<count {
            let value = datagram(index, length: 514)
            let sent = value.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            XCTAssertEqual(sent, 514, "value \(index) could not be sent: errno \(errno) (the socket was not read)")
            if sent != 514 { return }
        }
        XCTAssertTrue(received.isEmpty, "nothing is delivered outside the loop's thread")
        XCTAssertTrue(loop.run(until: { received.count == count }, timeout: 60))
        XCTAssertEqual(received, (0..<count).map { datagram($0, length: 514) })
        XCTAssertGreaterThan(socket.peakBacklog, 0)
        XCTAssertEqual(socket.backlog, 0)
    }

    func testHangUpIsReportedAfterTheLastDatagram() throws {
        let (reader, sender) = try socketPair()
        let loop = EventLoop()
        let socket = try NotificationSocket(fd: reader, mtu: MTU(23)!, loop: loop)
        var events: [AcquiredLink.Event] = []
        socket.onEvent = { events.append($0) }
        for value: [UInt8] in [[1, 0, 0, 0], [2, 0, 0, 0]] {
            _ = value.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        close(sender)
        XCTAssertTrue(loop.run(until: { events.last == .closed }, timeout: 30))
        XCTAssertEqual(events, [.received([1, 0, 0, 0]), .received([2, 0, 0, 0]), .closed])
        XCTAssertFalse(socket.isOpen)
    }

    func testCloseStopsTheReaderAndNoEventFollows() throws {
        let (reader, sender) = try socketPair()
        defer { close(sender) }
        let loop = EventLoop()
        var events: [AcquiredLink.Event] = []
        do {
            let socket = try NotificationSocket(fd: reader, mtu: MTU(23)!, loop: loop)
            socket.onEvent = { events.append($0) }
            socket.close()
            XCTAssertFalse(socket.isOpen)
        }
        // Our end is closed: the peer sees it (EPIPE / ECONNRESET on send).
        let value: [UInt8] = [9, 0, 0, 0]
        let sent = value.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        XCTAssertEqual(sent, -1)
        loop.runOnce(timeout: 0.05)
        XCTAssertEqual(events, [])
    }

    func testDeinitJoinsTheReaderAndClosesTheSocket() throws {
        let (reader, sender) = try socketPair()
        defer { close(sender) }
        let loop = EventLoop()
        weak var weakSocket: NotificationSocket?
        do {
            let socket = try NotificationSocket(fd: reader, mtu: MTU(23)!, loop: loop)
            weakSocket = socket
        }
        XCTAssertNil(weakSocket, "nothing (the reader thread included) keeps the socket object alive")
        let value: [UInt8] = [9, 0, 0, 0]
        let sent = value.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        XCTAssertEqual(sent, -1, "the descriptor was closed")
    }

    func testTakingAnAcquiredLinkLeavesTheLinkClosedAndReadsItsDescriptor() throws {
        let (reader, sender) = try socketPair()
        defer { close(sender) }
        let loop = EventLoop()
        let link = AcquiredLink(fd: reader, mtu: MTU(185)!, loop: loop)
        var linkEvents: [AcquiredLink.Event] = []
        link.onEvent = { linkEvents.append($0) }
        let socket = try NotificationSocket(taking: link, loop: loop)
        XCTAssertFalse(link.isOpen)
        XCTAssertEqual(socket.mtu, MTU(185)!)
        var received: [[UInt8]] = []
        socket.onEvent = { if case .received(let value) = $0 { received.append(value) } }
        let value: [UInt8] = [5, 0, 0, 0]
        _ = value.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        XCTAssertTrue(loop.run(until: { !received.isEmpty }, timeout: 30))
        XCTAssertEqual(received, [value])
        XCTAssertEqual(linkEvents, [], "the link no longer watches the descriptor")
        link.close()  // must not close the descriptor the socket now owns
        _ = value.withUnsafeBytes { send(sender, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        XCTAssertTrue(loop.run(until: { received.count == 2 }, timeout: 30))
    }
}

final class MallocArenaTests: XCTestCase {
    func testOneArenaIsAcceptedByGlibc() {
        #if canImport(Glibc)
            XCTAssertTrue(NotificationSocket.useOneMallocArena(), "mallopt(M_ARENA_MAX, 1) found and accepted")
        #endif
    }
}
