/// `org.freedesktop.DBus.Properties` for exported objects.
extension DBusConnection {
    func handleProperties(_ call: DBusMethodCall, on object: ExportedObject) -> Result<[DBusValue], DBusRemoteError> {
        switch call.member {
        case "Get":
            guard call.arguments.signature == "ss", let interfaceName = call.arguments[0].asString,
                let name = call.arguments[1].asString
            else { return .failure(.invalidArgs("Get expects (ss)")) }
            switch lookUp(interfaceName, name, on: object) {
            case .failure(let error): return .failure(error)
            case .success(let property):
                guard property.access != .write, let value = property.get() else {
                    return .failure(.init(name: DBusRemoteError.Names.failed, message: "\(name) is not readable now"))
                }
                return .success([.variant(value)])
            }
        case "GetAll":
            guard call.arguments.signature == "s", let interfaceName = call.arguments[0].asString else {
                return .failure(.invalidArgs("GetAll expects (s)"))
            }
            if let interface = object.interface(named: interfaceName) {
                return .success([.stringDict(interface.propertyValues())])
            }
            if Self.isStandardInterface(interfaceName, on: object) { return .success([.stringDict([:])]) }
            return .failure(.init(name: DBusRemoteError.Names.unknownInterface, message: interfaceName))
        case "Set":
            guard call.arguments.signature == "ssv", let interfaceName = call.arguments[0].asString,
                let name = call.arguments[1].asString, let value = call.arguments[2].asVariant
            else { return .failure(.invalidArgs("Set expects (ssv)")) }
            switch lookUp(interfaceName, name, on: object) {
            case .failure(let error): return .failure(error)
            case .success(let property):
                guard let setter = property.set, property.access != .read else {
                    return .failure(
                        .init(name: DBusRemoteError.Names.propertyReadOnly, message: "\(name) is read-only"))
                }
                guard value.signature == property.signature else {
                    return .failure(.invalidArgs("\(name) has type '\(property.signature)', got '\(value.signature)'"))
                }
                switch setter(value, call) {
                case .failure(let error): return .failure(error)
                case .success:
                    if property.emitsChangedSignal {
                        try? object.emitPropertiesChanged(interface: interfaceName, names: [name])
                    }
                    return .success([])
                }
            }
        default:
            return .failure(.unknownMethod("\(Self.propertiesInterface).\(call.member)"))
        }
    }

    private func lookUp(
        _ interfaceName: String, _ name: String, on object: ExportedObject
    ) -> Result<ExportedProperty, DBusRemoteError> {
        guard let interface = object.interface(named: interfaceName) else {
            return .failure(.init(name: DBusRemoteError.Names.unknownInterface, message: interfaceName))
        }
        guard let property = interface.property(named: name) else {
            return .failure(.init(name: DBusRemoteError.Names.unknownProperty, message: "\(interfaceName).\(name)"))
        }
        return .success(property)
    }

    static func isStandardInterface(_ name: String, on object: ExportedObject) -> Bool {
        name == propertiesInterface || name == introspectableInterface || name == "org.freedesktop.DBus.Peer"
            || (object.isObjectManager && name == objectManagerInterface)
    }
}
