/// An incoming method call on an exported object.
public struct DBusMethodCall: Sendable {
    /// The caller's unique name.
    public var sender: String
    public var path: ObjectPath
    /// The interface named by the caller (may be absent in a call).
    public var interface: String?
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String, path: ObjectPath, interface: String?, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// A method of an exported interface.
public struct ExportedMethod {
    /// How the method answers.
    public enum Handler {
        /// Answers at once: reply values, or an error reply.
        case immediate((DBusMethodCall) -> Result<[DBusValue], DBusRemoteError>)
        /// Answers later through the reply handle (exactly once; a dropped handle answers `Failed`).
        case deferred((DBusMethodCall, DBusReplyHandle) -> Void)
    }

    public var name: String
    /// Expected argument signature; a call with other arguments gets `InvalidArgs` without
    /// reaching the handler. `nil` accepts anything (and introspects as no arguments).
    public var input: DBusSignature?
    /// Reply signature (introspection only).
    public var output: DBusSignature
    public var handler: Handler

    /// A method answering at once.
    public init(
        _ name: String, input: DBusSignature? = nil, output: DBusSignature = .empty,
        handler: @escaping (DBusMethodCall) -> Result<[DBusValue], DBusRemoteError>
    ) {
        self.name = name
        self.input = input
        self.output = output
        self.handler = .immediate(handler)
    }

    /// A method answering later through a `DBusReplyHandle`.
    public static func deferred(
        _ name: String, input: DBusSignature? = nil, output: DBusSignature = .empty,
        handler: @escaping (DBusMethodCall, DBusReplyHandle) -> Void
    ) -> ExportedMethod {
        var method = ExportedMethod(name, input: input, output: output) { _ in .success([]) }
        method.handler = .deferred(handler)
        return method
    }
}

/// A property of an exported interface, served through `org.freedesktop.DBus.Properties`.
public struct ExportedProperty {
    public enum Access: String, Sendable {
        case read
        case write
        case readWrite = "readwrite"
    }

    public var name: String
    public var signature: DBusSignature
    public var access: Access
    /// The current value; `nil` means absent right now (left out of `GetAll`, error on `Get`).
    public var get: () -> DBusValue?
    /// Applies a new value (already checked against `signature`); `nil` for read-only.
    public var set: ((DBusValue, DBusMethodCall) -> Result<Void, DBusRemoteError>)?
    /// Whether a successful `Set` emits `PropertiesChanged` with the new value.
    public var emitsChangedSignal: Bool

    /// A read-only property.
    public init(_ name: String, signature: DBusSignature, get: @escaping () -> DBusValue?) {
        self.name = name
        self.signature = signature
        self.access = .read
        self.get = get
        self.set = nil
        self.emitsChangedSignal = true
    }

    /// A writable property.
    public init(
        _ name: String, signature: DBusSignature, get: @escaping () -> DBusValue?,
        set: @escaping (DBusValue, DBusMethodCall) -> Result<Void, DBusRemoteError>, emitsChangedSignal: Bool = true
    ) {
        self.name = name
        self.signature = signature
        self.access = .readWrite
        self.get = get
        self.set = set
        self.emitsChangedSignal = emitsChangedSignal
    }
}

/// A signal an interface may emit (used for introspection).
public struct ExportedSignal: Sendable {
    public var name: String
    public var signature: DBusSignature
    public init(_ name: String, signature: DBusSignature = .empty) {
        self.name = name
        self.signature = signature
    }
}

/// One interface of an exported object.
public struct ExportedInterface {
    public var name: String
    public var methods: [ExportedMethod]
    public var properties: [ExportedProperty]
    public var signals: [ExportedSignal]

    public init(
        _ name: String, methods: [ExportedMethod] = [], properties: [ExportedProperty] = [],
        signals: [ExportedSignal] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    func method(named member: String) -> ExportedMethod? { methods.first { $0.name == member } }
    func property(named name: String) -> ExportedProperty? { properties.first { $0.name == name } }

    /// Current values of all readable, present properties.
    func propertyValues() -> [String: DBusValue] {
        var values: [String: DBusValue] = [:]
        for property in properties where property.access != .write {
            if let value = property.get() { values[property.name] = value }
        }
        return values
    }
}

/// Who may call exported objects.
public enum CallerPolicy: Sendable, Hashable {
    /// Anyone on the bus (tests only; never for BlueZ-facing objects).
    case anyone
    /// Only the current owner of this well-known name (tracked through `NameOwnerChanged`).
    case owner(of: String)
    /// Only these unique names.
    case uniqueNames(Set<String>)
}

/// A call refused by the caller policy (answered with `org.freedesktop.DBus.Error.AccessDenied`).
public struct DeniedCall: Sendable, Hashable {
    public var sender: String
    public var path: String
    public var interface: String?
    public var member: String

    public init(sender: String, path: String, interface: String?, member: String) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
    }
}
