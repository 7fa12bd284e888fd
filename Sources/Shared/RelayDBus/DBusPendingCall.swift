internal import CDBus

/// An outstanding method call. Its reply handler runs exactly once on the loop, unless
/// `cancel()` is called first. Keeping this object is optional.
public final class DBusPendingCall {
    private var raw: OpaquePointer?
    private var handler: ((Result<[DBusValue], DBusError>) -> Void)?

    init(handler: @escaping (Result<[DBusValue], DBusError>) -> Void) {
        self.handler = handler
    }

    // `raw` is not a reference of ours: it is valid while libdbus keeps the call (until it
    // completes, is cancelled or the connection is freed), and libdbus retains this object as
    // notify data until then; the free function clears `raw`.

    /// Whether the reply handler has run or the call was cancelled.
    public var isFinished: Bool { handler == nil }

    /// Drops the call: the reply handler will not run.
    public func cancel() {
        handler = nil
        if let raw { dbus_pending_call_cancel(raw) }
        raw = nil
    }

    func attach(_ pending: OpaquePointer) {
        raw = pending
        // libdbus keeps the notify data (this object) retained until the pending call is freed.
        let data = Unmanaged.passRetained(self).toOpaque()
        let ok = dbus_pending_call_set_notify(
            pending,
            { pending, data in
                let call = Unmanaged<DBusPendingCall>.fromOpaque(data!).takeUnretainedValue()
                guard let pending, let reply = dbus_pending_call_steal_reply(pending) else {
                    call.complete(.failure(.disconnected))
                    return
                }
                call.complete(DBusPendingCall.result(of: Message(taking: reply)))
            },
            data,
            { data in
                let call = Unmanaged<DBusPendingCall>.fromOpaque(data!)
                call.takeUnretainedValue().raw = nil
                call.release()
            })
        if ok == 0 {
            Unmanaged<DBusPendingCall>.fromOpaque(data).release()
            dbus_pending_call_cancel(pending)
            raw = nil
            complete(.failure(.outOfMemory))
        }
        dbus_pending_call_unref(pending)  // the connection holds its own reference
    }

    func complete(_ result: Result<[DBusValue], DBusError>) {
        raw = nil
        guard let handler else { return }
        self.handler = nil
        handler(result)
    }

    /// Maps a reply message to the caller's result.
    static func result(of reply: Message) -> Result<[DBusValue], DBusError> {
        switch reply.kind {
        case .methodReturn:
            do {
                return .success(try reply.arguments())
            } catch {
                return .failure(error)
            }
        case .error:
            let name = reply.errorName ?? DBusRemoteError.Names.failed
            let text = ((try? reply.arguments())?.first?.asString) ?? ""
            // libdbus itself (no sender) produces NoReply on timeout and Disconnected on loss.
            if reply.sender == nil, name == DBusRemoteError.Names.noReply { return .failure(.timeout) }
            if reply.sender == nil, name == DBusRemoteError.Names.disconnected { return .failure(.disconnected) }
            return .failure(.remote(DBusRemoteError(name: name, message: text)))
        default:
            return .failure(.malformedMessage("reply of unexpected type"))
        }
    }
}
