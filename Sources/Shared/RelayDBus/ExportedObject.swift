/// An object we serve on the bus: a path and its interfaces.
///
/// `org.freedesktop.DBus.Properties` and `org.freedesktop.DBus.Introspectable` are provided
/// for every exported object; `org.freedesktop.DBus.ObjectManager` when `isObjectManager`
/// (it then reports every exported object below its path, and emits `InterfacesAdded` /
/// `InterfacesRemoved` when they are exported, unexported or change interfaces).
public final class ExportedObject {
    public let path: ObjectPath
    public let isObjectManager: Bool
    public private(set) var interfaces: [ExportedInterface]
    weak var connection: DBusConnection?

    public init(path: ObjectPath, interfaces: [ExportedInterface] = [], isObjectManager: Bool = false) {
        self.path = path
        self.interfaces = interfaces
        self.isObjectManager = isObjectManager
    }

    /// Whether the object is currently exported on a connection.
    public var isExported: Bool { connection != nil }

    public func interface(named name: String) -> ExportedInterface? {
        interfaces.first { $0.name == name }
    }

    /// Adds (or replaces) an interface; announces it through the object manager above, if any.
    public func addInterface(_ interface: ExportedInterface) {
        interfaces.removeAll { $0.name == interface.name }
        interfaces.append(interface)
        connection?.announceInterfacesAdded(of: self, names: [interface.name])
    }

    /// Removes an interface; announces it through the object manager above, if any.
    public func removeInterface(named name: String) {
        guard interfaces.contains(where: { $0.name == name }) else { return }
        interfaces.removeAll { $0.name == name }
        connection?.announceInterfacesRemoved(at: path, names: [name])
    }

    /// Emits `PropertiesChanged` with these values (the notification hot path: no lookups).
    public func emitPropertiesChanged(
        interface: String, changed: [String: DBusValue], invalidated: [String] = []
    ) throws(DBusError) {
        guard let connection else { throw .disconnected }
        try connection.emitSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(interface), .stringDict(changed), .strings(invalidated)])
    }

    /// Emits `PropertiesChanged` for these properties, read from their getters
    /// (absent ones are reported as invalidated).
    public func emitPropertiesChanged(interface name: String, names: [String]) throws(DBusError) {
        guard let interface = interface(named: name) else { throw .invalidName("interface '\(name)' not on \(path)") }
        var changed: [String: DBusValue] = [:]
        var invalidated: [String] = []
        for property in names {
            if let value = interface.property(named: property)?.get() {
                changed[property] = value
            } else {
                invalidated.append(property)
            }
        }
        try emitPropertiesChanged(interface: name, changed: changed, invalidated: invalidated)
    }

    /// Emits a signal from this object.
    public func emitSignal(interface: String, member: String, arguments: [DBusValue] = []) throws(DBusError) {
        guard let connection else { throw .disconnected }
        try connection.emitSignal(path: path, interface: interface, member: member, arguments: arguments)
    }
}

/// The exported objects and the caller policy of a connection.
struct ExportRegistry {
    var objects: [ObjectPath: ExportedObject] = [:]
    var policy: CallerPolicy = .owner(of: "org.bluez")
    var onAccessDenied: ((DeniedCall) -> Void)?
    /// The name whose owner tracking the policy holds.
    var trackedName: String?
    /// Calls that arrived before the first answer about the owner; decided once it is known.
    var waitingForOwner: [Message] = []
    /// At most this many calls wait for the owner; beyond, a call is answered `LimitsExceeded`.
    static let maximumWaitingForOwner = 64

    mutating func removeAll() {
        for object in objects.values { object.connection = nil }
        objects.removeAll()
        onAccessDenied = nil
        waitingForOwner.removeAll()
    }

    /// Whether `path` is exported or has exported descendants.
    func isKnown(_ path: ObjectPath) -> Bool {
        objects[path] != nil || objects.keys.contains { $0.isDescendant(of: path) }
    }

    /// The closest object manager strictly above `path`.
    func manager(above path: ObjectPath) -> ExportedObject? {
        var current = path.parent
        while let candidate = current {
            if let object = objects[candidate], object.isObjectManager { return object }
            current = candidate.parent
        }
        return nil
    }

    /// The names of the direct children of `path` (for introspection).
    func childNames(of path: ObjectPath) -> [String] {
        let depth = path.components.count
        var names = Set<String>()
        for candidate in objects.keys where candidate.isDescendant(of: path) {
            names.insert(candidate.components[depth])
        }
        return names.sorted()
    }
}
