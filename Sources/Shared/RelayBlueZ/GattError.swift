import RelayDBus

/// Why our GATT application refuses a request from bluetoothd: the `org.bluez.Error.*` it
/// answers (bluetoothd turns them into ATT error responses for the remote).
public enum GattError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A read or write offset beyond the value (`InvalidOffset`).
    case invalidOffset(offset: Int, length: Int)
    /// The operation is not allowed (`NotPermitted`), e.g. a socket already acquired.
    case notPermitted(String)
    /// The remote is not authorised (`NotAuthorized`), e.g. not on the allow-list.
    case notAuthorized
    /// The value has a length the characteristic does not take (`InvalidValueLength`).
    case invalidValueLength
    /// The request's arguments are malformed (D-Bus `InvalidArgs`).
    case invalidArguments(String)
    /// Anything else (`Failed`), with what failed.
    case failed(String)

    public var description: String { remote.message }

    /// The D-Bus error reply.
    var remote: DBusRemoteError {
        let prefix = "org.bluez.Error."
        switch self {
        case .invalidOffset(let offset, let length):
            return DBusRemoteError(name: prefix + "InvalidOffset", message: "offset \(offset) beyond \(length) bytes")
        case .notPermitted(let why): return DBusRemoteError(name: prefix + "NotPermitted", message: why)
        case .notAuthorized: return DBusRemoteError(name: prefix + "NotAuthorized", message: "Not authorized")
        case .invalidValueLength:
            return DBusRemoteError(name: prefix + "InvalidValueLength", message: "Invalid value length")
        case .invalidArguments(let why): return .invalidArgs(why)
        case .failed(let why): return DBusRemoteError(name: prefix + "Failed", message: why)
        }
    }
}
