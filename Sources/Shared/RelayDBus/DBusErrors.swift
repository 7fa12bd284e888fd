/// An error returned by a remote peer, e.g. `org.bluez.Error.NotPermitted`.
///
/// The same value is used for errors we send back from exported objects.
public struct DBusRemoteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.AccessDenied`.
    public var name: String
    /// The human-readable message (may be empty).
    public var message: String

    public init(name: String, message: String = "") {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// Well-known error names of `org.freedesktop.DBus.Error`.
    public enum Names {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
    }

    public static func failed(_ message: String) -> DBusRemoteError { .init(name: Names.failed, message: message) }
    public static func accessDenied(_ message: String) -> DBusRemoteError {
        .init(name: Names.accessDenied, message: message)
    }
    public static func invalidArgs(_ message: String) -> DBusRemoteError {
        .init(name: Names.invalidArgs, message: message)
    }
    public static func unknownMethod(_ message: String) -> DBusRemoteError {
        .init(name: Names.unknownMethod, message: message)
    }
}

/// Errors of the D-Bus layer itself.
public enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Could not connect or register on the bus.
    case connectionFailed(String)
    /// The connection is closed or was lost.
    case disconnected
    /// No reply arrived within the call's timeout.
    case timeout
    /// The peer answered with an error.
    case remote(DBusRemoteError)
    /// Bytes that are not a valid D-Bus message.
    case malformedMessage(String)
    /// A well-formed message whose arguments do not have the expected types.
    case wrongShape(String)
    /// A value that cannot be encoded (element of the wrong type, NUL in a string, closed fd...).
    case invalidValue(String)
    /// An invalid object path, signature, bus, interface, member or error name.
    case invalidName(String)
    /// An object is already exported at this path.
    case alreadyExported(ObjectPath)
    /// libdbus could not allocate memory.
    case outOfMemory

    public var description: String {
        switch self {
        case .connectionFailed(let why): return "D-Bus connection failed: \(why)"
        case .disconnected: return "D-Bus connection closed"
        case .timeout: return "D-Bus call timed out"
        case .remote(let error): return error.description
        case .malformedMessage(let why): return "malformed D-Bus message: \(why)"
        case .wrongShape(let why): return "unexpected D-Bus arguments: \(why)"
        case .invalidValue(let why): return "invalid D-Bus value: \(why)"
        case .invalidName(let what): return "invalid D-Bus name: \(what)"
        case .alreadyExported(let path): return "object already exported at \(path)"
        case .outOfMemory: return "libdbus out of memory"
        }
    }

    /// The remote error, when this is one.
    public var remoteError: DBusRemoteError? {
        if case .remote(let error) = self { return error }
        return nil
    }
}
