import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An `AcquireNotify` socket read on a dedicated thread, so that it never sits unread.
///
/// bluetoothd writes each notification to this socket without blocking and drops the
/// notification when the socket is full. The program's one `EventLoop` may be busy for a while
/// (printing, saving a file, a long turn), so a reader thread empties the socket as soon as
/// datagrams arrive into a `DatagramInbox` (bounded by memory only) and wakes the loop through
/// a pipe; the loop then delivers them, in order, as `AcquiredLink.Event`s on its thread.
///
/// Owns the descriptor, the thread and two pipes: `close()` or deinit stops and joins the
/// thread, then closes them. No event follows `close()`. The thread allocates (one array per
/// notification): a program that cares about its address space limits glibc to one malloc arena
/// (`useOneMallocArena()`, as relay-central does), or the thread gets an arena of its own.
public final class NotificationSocket {
    /// The MTU that came with the descriptor.
    public let mtu: MTU
    /// Receives `.received` (one notification) and `.closed` (hang-up or error) on the loop's thread.
    public var onEvent: ((AcquiredLink.Event) -> Void)?

    private let inbox = DatagramInbox()
    private let loop: EventLoop
    private var socketFD: Int32 = -1
    /// The stop pipe (the reader polls its read end) and the wake pipe (the loop watches its read end).
    private var descriptors: [Int32] = []
    private var stopWriteFD: Int32 = -1
    private var wakeReadFD: Int32 = -1
    private var token: EventLoop.Token?
    private var thread: pthread_t?

    /// The problems that keep the reader from starting.
    public enum StartError: Error, Equatable, Sendable {
        /// `pipe` or `pthread_create` failed (an `errno` value).
        case system(String, Int32)
    }

    /// Takes over the descriptor of an acquired link (the link no longer watches or owns it)
    /// and starts reading it on a new thread. On failure the link is left as it was.
    public convenience init(taking link: AcquiredLink, loop: EventLoop) throws(StartError) {
        guard link.isOpen else { throw .system("the notification socket is closed", EBADF) }
        let fd = link.releaseDescriptor()
        do {
            try self.init(fd: fd, mtu: link.mtu, loop: loop)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Takes ownership of `fd` only when it succeeds.
    public init(fd: Int32, mtu: MTU, loop: EventLoop) throws(StartError) {
        self.mtu = mtu
        self.loop = loop
        guard let stop = Self.makePipe() else { throw .system("pipe", errno) }
        guard let wake = Self.makePipe() else {
            let code = errno
            Glibc.close(stop.read)
            Glibc.close(stop.write)
            throw .system("pipe", code)
        }
        let context = ReaderContext(socketFD: fd, stopFD: stop.read, wakeFD: wake.write, inbox: inbox)
        let retained = Unmanaged.passRetained(context).toOpaque()
        var handle = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        _ = pthread_attr_setstacksize(&attributes, Self.stackSize)
        let status = pthread_create(
            &handle, &attributes,
            { argument in
                guard let argument else { return nil }
                Unmanaged<ReaderContext>.fromOpaque(argument).takeRetainedValue().run()
                return nil
            }, retained)
        guard status == 0 else {
            Unmanaged<ReaderContext>.fromOpaque(retained).release()
            for end in [stop.read, stop.write, wake.read, wake.write] { Glibc.close(end) }
            throw .system("pthread_create", status)
        }
        socketFD = fd
        descriptors = [stop.read, stop.write, wake.read, wake.write]
        stopWriteFD = stop.write
        wakeReadFD = wake.read
        thread = handle
        token = loop.watch(fd: wake.read, for: .readable) { [weak self] _ in self?.deliver() }
    }

    /// The reader's stack: it only polls, reads into a heap buffer and appends (the default
    /// would reserve 8 MiB of address space).
    static let stackSize = 512 * 1024

    /// Makes every thread of the process allocate from glibc's main malloc arena
    /// (`mallopt(M_ARENA_MAX, 1)`). Otherwise the reader thread's first allocation makes glibc
    /// reserve an arena of its own: 64 MiB of address space, 128 MiB for a moment, which a
    /// program with one loop thread and one reader does not need. Call it before the first
    /// `NotificationSocket`; without glibc's `mallopt` (musl) it does nothing. Returns whether it applied.
    @discardableResult
    public static func useOneMallocArena() -> Bool {
        // malloc.h is not part of the Glibc module: look the function up instead.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(program) }
        guard let symbol = dlsym(program, "mallopt") else { return false }
        let arenaMax: Int32 = -8  // M_ARENA_MAX in glibc's malloc.h
        return unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, 1) == 1
    }

    /// A non-blocking, close-on-exec pipe.
    private static func makePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }

    deinit { stop() }

    /// Whether the socket is still open.
    public var isOpen: Bool { socketFD >= 0 }

    /// Notifications read but not delivered yet.
    public var backlog: Int { inbox.count }

    /// The most notifications that waited at once for the loop (how far it fell behind).
    public var peakBacklog: Int { inbox.peakCount }

    /// Stops the reader and closes the socket (releases the acquisition in BlueZ). Notifications
    /// read but not delivered yet are discarded. No event follows.
    public func close() { stop() }

    private func stop() {
        if let token { loop.cancel(token) }
        token = nil
        if let thread {
            var one: UInt8 = 1
            _ = Glibc.write(stopWriteFD, &one, 1)
            pthread_join(thread, nil)
            self.thread = nil
        }
        for fd in descriptors + [socketFD] where fd >= 0 { Glibc.close(fd) }
        descriptors = []
        socketFD = -1
        stopWriteFD = -1
        wakeReadFD = -1
    }

    /// On the loop's thread: hands over what the reader queued.
    private func deliver() {
        var bytes = [UInt8](repeating: 0, count: 64)
        _ = bytes.withUnsafeMutableBytes { Glibc.read(wakeReadFD, $0.baseAddress, $0.count) }
        let batch = inbox.take()
        for datagram in batch.datagrams {
            guard socketFD >= 0 else { return }  // closed by a handler meanwhile
            onEvent?(.received(datagram))
        }
        if batch.ended, socketFD >= 0 {
            stop()
            onEvent?(.closed)
        }
    }
}

/// What the reader thread needs: immutable descriptors and the shared inbox.
private final class ReaderContext: Sendable {
    let socketFD: Int32
    let stopFD: Int32
    let wakeFD: Int32
    let inbox: DatagramInbox

    init(socketFD: Int32, stopFD: Int32, wakeFD: Int32, inbox: DatagramInbox) {
        self.socketFD = socketFD
        self.stopFD = stopFD
        self.wakeFD = wakeFD
        self.inbox = inbox
    }

    /// The thread's body: wait for datagrams or the stop signal; read every datagram there is.
    func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds = [
            pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, -1) }
            if ready < 0 {
                if errno == EINTR { continue }
                return end()
            }
            if fds[1].revents != 0 { return }
            let events = fds[0].revents
            if events & Int16(POLLIN) != 0 {
                var batch: [[UInt8]] = []
                var finished = false
                while true {
                    let count = buffer.withUnsafeMutableBytes {
                        recv(socketFD, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                    }
                    if count > 0 {
                        batch.append(Array(buffer[0..<count]))
                        continue
                    }
                    let code = errno
                    if count < 0 && (code == EAGAIN || code == EWOULDBLOCK || code == EINTR) { break }
                    finished = true  // 0: the peer closed its end; < 0: the socket failed
                    break
                }
                if inbox.append(batch) { wake() }
                if finished { return end() }
            } else if events != 0 {
                return end()  // hang-up or error with nothing left to read
            }
        }
    }

    private func end() {
        if inbox.finish() { wake() }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeFD, &one, 1)
    }
}
