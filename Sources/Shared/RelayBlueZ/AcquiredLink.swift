import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A socket handed out by `AcquireWrite` or `AcquireNotify`: SOCK_SEQPACKET, one datagram
/// per attribute value.
///
/// Owns the descriptor (closes it on `close()` or deinit), keeps it non-blocking and lets the
/// `EventLoop` wake it: incoming datagrams, writable-again after a full socket (flow control)
/// and hang-up (the peer disconnected or BlueZ released it) arrive as `Event`s.
public final class AcquiredLink {
    /// What happened on the socket.
    public enum Event: Sendable, Equatable {
        /// A datagram arrived (a notification value, a written value, or a confirmation byte).
        case received([UInt8])
        /// The socket can take more after `send` returned `.wouldBlock`.
        case writable
        /// The peer hung up or the socket failed; the link is closed.
        case closed
    }

    /// The outcome of a `send`.
    public enum SendResult: Sendable, Equatable {
        /// The whole datagram was queued.
        case sent
        /// The socket is full: wait for `.writable`, then send the same datagram again.
        case wouldBlock
        /// The link is closed or the send failed (`errno` value; 0 when already closed).
        case failed(Int32)
    }

    /// The MTU that came with the descriptor.
    public let mtu: MTU
    private var fd: Int32
    private let loop: EventLoop
    private var token: EventLoop.Token?
    private var waitingForWritable = false
    /// Receives the link's events on the loop's thread.
    public var onEvent: ((Event) -> Void)?

    /// Where datagrams are read, allocated once: it holds the largest one read whole (a longer
    /// one would be cut).
    private var buffer: [UInt8]
    /// Reads one datagram into the buffer: `recv(2)` without blocking (the tests' stand-in for a
    /// kernel that reports an error ahead of queued data).
    var receive: (Int32, UnsafeMutableRawBufferPointer) -> Int = { fd, buffer in
        recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
    }

    /// Takes ownership of `fd` (it will be closed by this object) and watches it on `loop`;
    /// datagrams up to `receiveLimit` bytes are read whole.
    public init(fd: Int32, mtu: MTU, loop: EventLoop, receiveLimit: Int = 4096) {
        self.fd = fd
        self.mtu = mtu
        self.loop = loop
        self.buffer = [UInt8](repeating: 0, count: receiveLimit)
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        token = loop.watch(fd: fd, for: .readable) { [weak self] ready in self?.handle(ready) }
    }

    deinit {
        if let token { loop.cancel(token) }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Whether the descriptor is still open.
    public var isOpen: Bool { fd >= 0 }

    /// The largest datagram the peer expects (`mtu - 3`).
    public var maximumValueLength: Int { mtu.attributeValueLimit }

    /// Sends one datagram without blocking.
    public func send(_ datagram: [UInt8]) -> SendResult {
        guard fd >= 0 else { return .failed(0) }
        let sent = datagram.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent >= 0 { return .sent }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == ENOBUFS {
            waitingForWritable = true
            updateInterest()
            return .wouldBlock
        }
        return .failed(code)
    }

    /// Hands the descriptor over to a new owner: the link stops watching it, will not close it,
    /// and counts as closed from now on. Returns -1 when already closed.
    public func releaseDescriptor() -> Int32 {
        if let token { loop.cancel(token) }
        token = nil
        let descriptor = fd
        fd = -1
        return descriptor
    }

    /// Closes the descriptor (releases the acquisition in BlueZ). No event follows.
    public func close() {
        if let token { loop.cancel(token) }
        token = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private func updateInterest() {
        guard let token else { return }
        loop.update(token, interest: waitingForWritable ? [.readable, .writable] : .readable)
    }

    private func handle(_ ready: EventLoop.Readiness) {
        if ready.contains(.readable) { drain() }
        guard fd >= 0 else { return }
        if ready.contains(.writable) && waitingForWritable {
            waitingForWritable = false
            updateInterest()
            onEvent?(.writable)
        }
        if fd >= 0 && !ready.intersection(.hangup).isEmpty && !ready.contains(.readable) {
            closeAfterHangup()
        }
    }

    /// Reads every datagram waiting. The kernel reports a socket's end ahead of the datagrams
    /// still queued: an L2CAP channel whose peer sent its last value and hung up at once answers
    /// end-of-file (its ECONNRESET turned into 0 by Bluetooth's `recvmsg`) or the error first,
    /// then that value (seen as a final acknowledgement lost when relay-central disconnected right
    /// after a message). So after an end or an error the queue is read on, and the link closes
    /// once a second read finds nothing.
    private func drain() {
        var ending = false
        while fd >= 0 {
            let count = buffer.withUnsafeMutableBytes { receive(fd, $0) }
            if count > 0 {
                onEvent?(.received(Array(buffer[0..<count])))
                continue
            }
            let code = count == 0 ? 0 : errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
                if ending { closeAfterHangup() }
                return
            }
            // End of file (the peer closed its end) or an error.
            if ending {
                closeAfterHangup()
                return
            }
            ending = true
        }
    }

    private func closeAfterHangup() {
        close()
        onEvent?(.closed)
    }
}
