internal import CDBus
import RelayRuntime

/// A private connection to a message bus, driven by an `EventLoop`.
///
/// The connection is used on the loop's thread only. It is woken by fd readiness and
/// libdbus timeouts; nothing blocks after `init` (which performs the bus `Hello`).
/// Method calls are asynchronous, so peers may call back into exported objects while a
/// call is outstanding (bluetoothd does this during `RegisterApplication`).
public final class DBusConnection {
    /// Which bus to connect to.
    public enum Bus: Sendable, Hashable {
        /// The system bus (libdbus honours `DBUS_SYSTEM_BUS_ADDRESS`).
        case system
        /// The session bus (`DBUS_SESSION_BUS_ADDRESS`).
        case session
        /// A bus at this address, e.g. `unix:path=/tmp/bus`.
        case address(String)
    }

    /// The loop that drives this connection.
    public let loop: EventLoop
    /// Our unique bus name, e.g. `:1.42`.
    public let uniqueName: String

    let raw: OpaquePointer
    let bridge: ConnectionLoopBridge
    private var closed = false
    private var disconnectHandlers: [() -> Void] = []
    var signalRoutes = SignalRoutes()
    var exports = ExportRegistry()
    var ownerTrackers: [String: NameOwnerWatcher] = [:]
    var ownerTrackingCounts: [String: Int] = [:]

    /// Whether the connection is still open.
    public var isConnected: Bool { !closed && dbus_connection_get_is_connected(raw) != 0 }

    /// Connects and registers on `bus`; throws `connectionFailed` if that is impossible.
    public init(bus: Bus = .system, loop: EventLoop) throws(DBusError) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        func failure(_ what: String) -> DBusError {
            let detail = error.message.map { String(cString: $0) } ?? "unknown error"
            return .connectionFailed("\(what): \(detail)")
        }
        let opened: OpaquePointer?
        switch bus {
        case .system: opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .session: opened = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .address(let address):
            guard let connection = dbus_connection_open_private(address, &error) else {
                throw failure("cannot open \(address)")
            }
            guard dbus_bus_register(connection, &error) != 0 else {
                let failed = failure("cannot register on \(address)")
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                throw failed
            }
            opened = connection
        }
        guard let raw = opened else { throw failure("cannot connect to the \(bus) bus") }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        self.raw = raw
        self.loop = loop
        self.uniqueName = dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
        self.bridge = ConnectionLoopBridge(raw: raw, loop: loop)
        try bridge.attach()  // on failure deinit closes and releases the connection
        bridge.onMessage = { [weak self] message in self?.handleIncoming(message) ?? false }
    }

    deinit {
        shutDown()
        dbus_connection_unref(raw)
    }

    /// Closes the connection now. Outstanding replies are not delivered; exports stop answering.
    public func close() {
        shutDown()
    }

    private func shutDown() {
        guard !closed else { return }
        closed = true
        ownerTrackers.removeAll()
        signalRoutes.removeAll()
        exports.removeAll()
        bridge.detach()
        dbus_connection_close(raw)
    }

    /// Registers `handler` to run once when the connection to the bus is lost
    /// (not when `close()` is called).
    public func onDisconnect(_ handler: @escaping () -> Void) {
        disconnectHandlers.append(handler)
    }

    // MARK: outgoing

    /// Calls `method` asynchronously; `reply` runs on the loop with the reply's arguments,
    /// `.remote` for an error reply, `.timeout` after `timeout` seconds, or `.disconnected`.
    /// `reply` runs exactly once unless the returned call is cancelled. With `autoStart` false
    /// the bus does not start (activate) the destination: an unowned name fails at once.
    @discardableResult
    public func call(
        destination: String?, path: ObjectPath, interface: String?, method: String,
        arguments: [DBusValue] = [], timeout: Double = 25, autoStart: Bool = true,
        reply: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) -> DBusPendingCall {
        let pending = DBusPendingCall(handler: reply)
        do {
            let message = try Message.methodCall(
                destination: destination, path: path, interface: interface, member: method)
            if !autoStart { dbus_message_set_auto_start(message.raw, 0) }
            try message.append(arguments)
            try send(message, expectingReplyWithin: timeout, to: pending)
        } catch {
            // A timer, not `post`: posted work that runs first in a turn does not end that turn's wait.
            loop.schedule(after: 0) { pending.complete(.failure(error)) }
        }
        return pending
    }

    /// Emits a signal from `path`; `destination` `nil` broadcasts it.
    public func emitSignal(
        path: ObjectPath, interface: String, member: String, arguments: [DBusValue] = [],
        destination: String? = nil
    ) throws(DBusError) {
        let message = try Message.signal(path: path, interface: interface, member: member)
        if let destination {
            try Names.checkBusName(destination)
            dbus_message_set_destination(message.raw, destination)
        }
        try message.append(arguments)
        try send(message)
    }

    /// Asks the bus for `name` (fails with a remote error if someone else owns it).
    public func requestName(_ name: String, reply: @escaping (Result<Void, DBusError>) -> Void) {
        let doNotQueue = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE)
        call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "RequestName", arguments: [.string(name), .uint32(doNotQueue)]
        ) { result in
            reply(
                result.flatMap { values in
                    let primary = UInt32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
                    let already = UInt32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER)
                    guard let code = values.first?.asUInt32 else { return .failure(.wrongShape("RequestName reply")) }
                    return code == primary || code == already
                        ? .success(())
                        : .failure(.remote(.init(name: DBusRemoteError.Names.failed, message: "\(name) is taken")))
                })
        }
    }

    /// Gives up `name`.
    public func releaseName(_ name: String, reply: @escaping (Result<Void, DBusError>) -> Void = { _ in }) {
        call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "ReleaseName", arguments: [.string(name)]
        ) { result in reply(result.map { _ in () }) }
    }

    func send(_ message: Message) throws(DBusError) {
        guard isConnected else { throw .disconnected }
        guard dbus_connection_send(raw, message.raw, nil) != 0 else { throw .outOfMemory }
    }

    private func send(
        _ message: Message, expectingReplyWithin timeout: Double, to pending: DBusPendingCall
    ) throws(DBusError) {
        guard isConnected else { throw .disconnected }
        let millis: Int32 =
            timeout.isInfinite ? Int32.max : Int32(clamping: Int64((max(0, timeout) * 1000).rounded(.up)))
        var handle: OpaquePointer? = nil
        guard dbus_connection_send_with_reply(raw, message.raw, &handle, millis) != 0 else { throw .outOfMemory }
        guard let handle else { throw .disconnected }
        pending.attach(handle)
    }

    // MARK: incoming

    private func handleIncoming(_ message: Message) -> Bool {
        switch message.kind {
        case .signal:
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                handleDisconnect()
                return true
            }
            routeSignal(message)
            return false
        case .methodCall:
            handleMethodCall(message)
            return true
        default:
            return false
        }
    }

    private func handleDisconnect() {
        let handlers = disconnectHandlers
        disconnectHandlers.removeAll()
        for handler in handlers { handler() }
    }
}
