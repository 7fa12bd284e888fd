#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Delivers POSIX signals (SIGINT, SIGTERM, SIGWINCH, ...) as ordinary event-loop
/// callbacks, through a self-pipe: the C signal handler only writes the signal number
/// to a non-blocking pipe, and the loop reads it and calls `handler` on its thread.
///
/// The previous dispositions are restored when the watcher is deinitialised or
/// ``stop()`` is called. Only one watcher should handle a given signal at a time.
public final class SignalWatcher {
    private let loop: EventLoop
    private let signals: [Int32]
    private var previous: [Int32: sigaction] = [:]
    private var readFD: Int32 = -1
    private var writeFD: Int32 = -1
    private var token: EventLoop.Token?

    /// Starts handling `signals` on `loop`; returns nil if the pipe cannot be created.
    public init?(loop: EventLoop, signals: [Int32], handler: @escaping (Int32) -> Void) {
        self.loop = loop
        self.signals = signals.filter { $0 > 0 && $0 < Int32(signalTargetCount) }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
        let readEnd = readFD
        token = loop.watch(fd: readEnd, for: .readable) { _ in
            var bytes = [UInt8](repeating: 0, count: 64)
            while true {
                let count = read(readEnd, &bytes, bytes.count)
                guard count > 0 else { break }
                for byte in bytes[0..<count] { handler(Int32(byte)) }
            }
        }
        let targets = signalTargets
        for signal in self.signals {
            targets[Int(signal)] = writeFD
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
    }

    /// Restores the previous signal dispositions and closes the pipe. Idempotent.
    public func stop() {
        for signal in signals {
            if var old = previous[signal] {
                sigaction(signal, &old, nil)
                if signalTargets[Int(signal)] == writeFD { signalTargets[Int(signal)] = -1 }
            }
        }
        previous.removeAll()
        if let token { loop.cancel(token) }
        token = nil
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
        readFD = -1
        writeFD = -1
    }

    deinit { stop() }
}

private let signalTargetCount = 65

/// Pipe write ends by signal number, read by the C handler (plain memory, no Swift runtime).
nonisolated(unsafe) private let signalTargets: UnsafeMutablePointer<Int32> = {
    let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: signalTargetCount)
    pointer.initialize(repeating: -1, count: signalTargetCount)
    return pointer
}()

/// The async-signal-safe handler: writes the signal number to its pipe, keeping errno.
private func forwardSignal(_ signal: Int32) {
    guard signal > 0, signal < Int32(signalTargetCount) else { return }
    let fd = signalTargets[Int(signal)]
    guard fd >= 0 else { return }
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(fd, &byte, 1)
    errno = savedErrno
}
