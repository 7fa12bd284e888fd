internal import CDBus
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Connects a libdbus connection to the `EventLoop`: libdbus watches become fd watches,
/// libdbus timeouts become loop timers, and pending dispatch is posted to the loop.
///
/// libdbus keeps retained references to this object as user data (released through its
/// free functions); the owning `DBusConnection` detaches it in `deinit`.
final class ConnectionLoopBridge {
    let raw: OpaquePointer
    let loop: EventLoop
    /// Called for every incoming message not consumed by a pending-call reply.
    var onMessage: ((Message) -> Bool)?
    private var watchTokens: [OpaquePointer: EventLoop.Token] = [:]
    private var timeoutTokens: [OpaquePointer: EventLoop.Token] = [:]
    private var dispatchPosted = false
    private var dispatching = false
    private var detached = false

    /// The user data registered with the filter (needed to remove it).
    private var filterData: UnsafeMutableRawPointer?

    /// The message filter: hands every message to `onMessage`.
    private static let filter: DBusHandleMessageFunction = { _, message, data in
        let bridge = ConnectionLoopBridge.from(data)
        guard let message, let handler = bridge.onMessage else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        return handler(Message(retaining: message)) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    init(raw: OpaquePointer, loop: EventLoop) {
        self.raw = raw
        self.loop = loop
    }

    /// Installs the watch, timeout, dispatch-status and filter functions.
    func attach() throws(DBusError) {
        let watchesOK = dbus_connection_set_watch_functions(
            raw,
            { watch, data in ConnectionLoopBridge.from(data).addWatch(watch!) },
            { watch, data in ConnectionLoopBridge.from(data).removeWatch(watch!) },
            { watch, data in ConnectionLoopBridge.from(data).toggleWatch(watch!) },
            retainedSelf(), { ConnectionLoopBridge.release($0) })
        guard watchesOK != 0 else { throw .outOfMemory }
        let timeoutsOK = dbus_connection_set_timeout_functions(
            raw,
            { timeout, data in ConnectionLoopBridge.from(data).addTimeout(timeout!) },
            { timeout, data in ConnectionLoopBridge.from(data).removeTimeout(timeout!) },
            { timeout, data in ConnectionLoopBridge.from(data).toggleTimeout(timeout!) },
            retainedSelf(), { ConnectionLoopBridge.release($0) })
        guard timeoutsOK != 0 else { throw .outOfMemory }
        dbus_connection_set_dispatch_status_function(
            raw,
            { _, status, data in
                if status == DBUS_DISPATCH_DATA_REMAINS { ConnectionLoopBridge.from(data).scheduleDispatch() }
            },
            retainedSelf(), { ConnectionLoopBridge.release($0) })
        let data = retainedSelf()
        guard dbus_connection_add_filter(raw, Self.filter, data, { ConnectionLoopBridge.release($0) }) != 0 else {
            Self.release(data)
            throw .outOfMemory
        }
        filterData = data
        scheduleDispatch()
    }

    /// Removes every loop registration and the libdbus callbacks (which release this object).
    func detach() {
        guard !detached else { return }
        detached = true
        onMessage = nil
        for token in watchTokens.values { loop.cancel(token) }
        for token in timeoutTokens.values { loop.cancel(token) }
        watchTokens.removeAll()
        timeoutTokens.removeAll()
        knownTimeouts.removeAll()
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        if let filterData {
            dbus_connection_remove_filter(raw, Self.filter, filterData)  // releases its retain
            self.filterData = nil
        }
    }

    // MARK: watches

    private func addWatch(_ watch: OpaquePointer) -> dbus_bool_t {
        guard !detached else { return 1 }
        let fd = dbus_watch_get_unix_fd(watch)
        let token = loop.watch(fd: fd, for: interest(of: watch)) { [weak self] ready in
            self?.handleWatch(watch, ready)
        }
        watchTokens[watch] = token
        return 1
    }

    private func removeWatch(_ watch: OpaquePointer) {
        if let token = watchTokens.removeValue(forKey: watch) { loop.cancel(token) }
    }

    private func toggleWatch(_ watch: OpaquePointer) {
        if let token = watchTokens[watch] { loop.update(token, interest: interest(of: watch)) }
    }

    private func interest(of watch: OpaquePointer) -> EventLoop.Readiness {
        guard dbus_watch_get_enabled(watch) != 0 else { return [] }
        let flags = dbus_watch_get_flags(watch)
        var interest: EventLoop.Readiness = []
        if flags & DBUS_WATCH_READABLE.rawValue != 0 { interest.insert(.readable) }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { interest.insert(.writable) }
        return interest
    }

    private func handleWatch(_ watch: OpaquePointer, _ ready: EventLoop.Readiness) {
        guard watchTokens[watch] != nil else { return }
        var flags: UInt32 = 0
        if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
        if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
        if !ready.intersection(.hangup).isEmpty { flags |= DBUS_WATCH_HANGUP.rawValue | DBUS_WATCH_ERROR.rawValue }
        dbus_watch_handle(watch, flags)
        dispatchNow()
        if ready.contains(.readable) { drain(watch) }
    }

    /// Most socket reads per wake-up: libdbus reads about 2 KiB per `dbus_watch_handle`, so
    /// this drains up to ~128 KiB before other watches get their turn.
    static let maximumReadsPerWakeUp = 64

    /// Reads and dispatches whatever else is already queued on the socket, in this wake-up:
    /// a burst of messages (e.g. one `WriteValue` call or `PropertiesChanged` signal per
    /// frame) costs one loop turn instead of one per ~2 KiB. Messages are dispatched in
    /// arrival order, exactly as they would be over several turns.
    private func drain(_ watch: OpaquePointer) {
        let fd = dbus_watch_get_unix_fd(watch)
        var reads = 1
        while reads < Self.maximumReadsPerWakeUp, !detached, watchTokens[watch] != nil,
            dbus_watch_get_enabled(watch) != 0, dbus_watch_get_flags(watch) & DBUS_WATCH_READABLE.rawValue != 0,
            Self.hasInput(fd)
        {
            dbus_watch_handle(watch, DBUS_WATCH_READABLE.rawValue)
            dispatchNow()
            reads += 1
        }
    }

    /// Whether `fd` has bytes (or a hang-up) to read right now, without waiting.
    private static func hasInput(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    // MARK: timeouts

    private func addTimeout(_ timeout: OpaquePointer) -> dbus_bool_t {
        guard !detached else { return 1 }
        knownTimeouts.insert(timeout)
        armTimeout(timeout)
        return 1
    }

    private func removeTimeout(_ timeout: OpaquePointer) {
        knownTimeouts.remove(timeout)
        disarmTimeout(timeout)
    }

    private func toggleTimeout(_ timeout: OpaquePointer) {
        disarmTimeout(timeout)
        armTimeout(timeout)
    }

    private func disarmTimeout(_ timeout: OpaquePointer) {
        if let token = timeoutTokens.removeValue(forKey: timeout) { loop.cancel(token) }
    }

    private func armTimeout(_ timeout: OpaquePointer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let seconds = Double(dbus_timeout_get_interval(timeout)) / 1000
        timeoutTokens[timeout] = loop.schedule(after: seconds) { [weak self] in
            guard let self, self.timeoutTokens.removeValue(forKey: timeout) != nil else { return }
            dbus_timeout_handle(timeout)
            // libdbus timeouts repeat until removed or disabled; re-arm unless handling changed that.
            if self.timeoutTokens[timeout] == nil, !self.detached, self.isTimeoutAlive(timeout) {
                self.armTimeout(timeout)
            }
            self.dispatchNow()
        }
    }

    /// Timeouts libdbus has added and not yet removed.
    private var knownTimeouts: Set<OpaquePointer> = []
    private func isTimeoutAlive(_ timeout: OpaquePointer) -> Bool { knownTimeouts.contains(timeout) }

    // MARK: dispatch

    func scheduleDispatch() {
        guard !dispatchPosted, !detached else { return }
        dispatchPosted = true
        loop.post { [weak self] in
            guard let self else { return }
            self.dispatchPosted = false
            self.dispatchNow()
        }
    }

    /// Dispatches every queued message. Never recursive (libdbus forbids it): a nested
    /// request is re-posted.
    func dispatchNow() {
        guard !detached else { return }
        if dispatching {
            scheduleDispatch()
            return
        }
        dispatching = true
        defer { dispatching = false }
        while !detached, dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    // MARK: user data

    private func retainedSelf() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    static func from(_ data: UnsafeMutableRawPointer?) -> ConnectionLoopBridge {
        Unmanaged<ConnectionLoopBridge>.fromOpaque(data!).takeUnretainedValue()
    }

    static func release(_ data: UnsafeMutableRawPointer?) {
        guard let data else { return }
        Unmanaged<ConnectionLoopBridge>.fromOpaque(data).release()
    }
}
