/// Exporting objects and controlling who may call them.
extension DBusConnection {
    /// Who may call our exported objects. Default: only the current owner of `org.bluez`.
    /// Anyone else gets `org.freedesktop.DBus.Error.AccessDenied` and `onAccessDenied` runs.
    public var exportPolicy: CallerPolicy {
        get { exports.policy }
        set {
            exports.policy = newValue
            updatePolicyTracking()
        }
    }

    /// Called for every refused call (e.g. to report an injection attempt).
    public var onAccessDenied: ((DeniedCall) -> Void)? {
        get { exports.onAccessDenied }
        set { exports.onAccessDenied = newValue }
    }

    /// Serves `object` on this connection. Announces it through an object manager above it.
    public func export(_ object: ExportedObject) throws(DBusError) {
        guard exports.objects[object.path] == nil, object.connection == nil else {
            throw .alreadyExported(object.path)
        }
        exports.objects[object.path] = object
        object.connection = self
        updatePolicyTracking()
        announceInterfacesAdded(of: object, names: object.interfaces.map(\.name))
    }

    /// Stops serving the object at `path`; announces it through an object manager above it.
    public func unexport(_ path: ObjectPath) {
        guard let object = exports.objects.removeValue(forKey: path) else { return }
        announceInterfacesRemoved(at: path, names: object.interfaces.map(\.name))
        object.connection = nil
    }

    /// The object exported at `path`, if any.
    public func exportedObject(at path: ObjectPath) -> ExportedObject? {
        exports.objects[path]
    }

    private func updatePolicyTracking() {
        let wanted: String? = {
            if case .owner(let name) = exports.policy, !exports.objects.isEmpty { return name }
            return nil
        }()
        guard wanted != exports.trackedName else { return }
        if let old = exports.trackedName { releaseOwnerTracking(of: old) }
        exports.trackedName = wanted
        if let wanted { retainOwnerTracking(of: wanted) }
    }

    /// The policy's owner lookup answered: decide the calls that waited for it.
    func ownerTrackingChanged(_ name: String) {
        releaseHeldSignals()
        guard name == exports.trackedName, !exports.waitingForOwner.isEmpty else { return }
        let waiting = exports.waitingForOwner
        exports.waitingForOwner.removeAll()
        for message in waiting { handleMethodCall(message) }
    }

    /// Whether the policy cannot decide yet (the owner lookup has not answered).
    func isPolicyPending() -> Bool {
        guard case .owner(let name) = exports.policy else { return false }
        return isOwnerPending(of: name)
    }

    func isAllowed(sender: String) -> Bool {
        switch exports.policy {
        case .anyone: return true
        case .uniqueNames(let names): return names.contains(sender)
        case .owner(let name):
            guard let owner = trackedOwner(of: name) else { return false }
            return owner == sender
        }
    }

    func announceInterfacesAdded(of object: ExportedObject, names: [String]) {
        guard object.connection === self, !names.isEmpty, let manager = exports.manager(above: object.path) else {
            return
        }
        let entries = object.interfaces.filter { names.contains($0.name) }.map { interface in
            (key: DBusValue.string(interface.name), value: DBusValue.stringDict(interface.propertyValues()))
        }
        try? emitSignal(
            path: manager.path, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
            arguments: [
                .objectPath(object.path), .dictionary(key: .string, value: "a{sv}", entries),
            ])
    }

    func announceInterfacesRemoved(at path: ObjectPath, names: [String]) {
        guard !names.isEmpty, let manager = exports.manager(above: path) else { return }
        try? emitSignal(
            path: manager.path, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved",
            arguments: [.objectPath(path), .strings(names)])
    }
}
