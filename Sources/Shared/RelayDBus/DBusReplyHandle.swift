/// The pending answer of a deferred method call. Answer exactly once with `succeed` or
/// `fail`; later answers are ignored, and a handle released unanswered replies
/// `org.freedesktop.DBus.Error.Failed` so the caller never waits for nothing.
public final class DBusReplyHandle {
    private weak var connection: DBusConnection?
    private var call: Message?

    init(connection: DBusConnection, call: Message) {
        self.connection = connection
        self.call = call
    }

    deinit {
        if call != nil { fail(.failed("the method handler did not answer")) }
    }

    /// Whether an answer was already sent.
    public var isAnswered: Bool { call == nil }

    /// Replies with these values (which may include file descriptors).
    public func succeed(_ values: [DBusValue] = []) {
        guard let call else { return }
        self.call = nil
        connection?.sendReply(to: call, .success(values))
    }

    /// Replies with an error.
    public func fail(_ error: DBusRemoteError) {
        guard let call else { return }
        self.call = nil
        connection?.sendReply(to: call, .failure(error))
    }
}
