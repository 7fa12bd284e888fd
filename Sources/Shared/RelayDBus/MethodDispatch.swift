/// Incoming method calls: access control, routing to exported objects and the standard
/// interfaces, and exactly one reply per call.
extension DBusConnection {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"

    /// The outcome of dispatching a call.
    enum Outcome {
        case reply(Result<[DBusValue], DBusRemoteError>)
        /// A deferred handler owns the reply.
        case deferred
    }

    func handleMethodCall(_ message: Message) {
        if isPolicyPending() {
            guard exports.waitingForOwner.count < ExportRegistry.maximumWaitingForOwner else {
                // Only another client's flood fills the queue before the owner lookup answers.
                sendReply(
                    to: message,
                    .failure(
                        .init(
                            name: DBusRemoteError.Names.limitsExceeded,
                            message: "too many calls before the owner of the objects is known")))
                return
            }
            exports.waitingForOwner.append(message)
            return
        }
        let outcome = dispatch(message)
        if case .reply(let result) = outcome { sendReply(to: message, result) }
    }

    private func dispatch(_ message: Message) -> Outcome {
        let sender = message.sender ?? ""
        let pathText = message.pathString ?? ""
        let member = message.member ?? ""
        let interface = message.interface
        guard isAllowed(sender: sender) else {
            onAccessDenied?(DeniedCall(sender: sender, path: pathText, interface: interface, member: member))
            return .reply(.failure(.accessDenied("\(sender) may not call \(pathText)")))
        }
        guard let path = ObjectPath(validating: pathText), exports.isKnown(path) else {
            return .reply(.failure(.init(name: DBusRemoteError.Names.unknownObject, message: "no object \(pathText)")))
        }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments()
        } catch {
            return .reply(.failure(.invalidArgs("undecodable arguments: \(error)")))
        }
        let call = DBusMethodCall(
            sender: sender, path: path, interface: interface, member: member, arguments: arguments)

        if interface == Self.introspectableInterface || (interface == nil && member == "Introspect") {
            guard member == "Introspect" else { return .reply(.failure(.unknownMethod(member))) }
            return .reply(.success([.string(introspectionXML(for: path))]))
        }
        guard let object = exports.objects[path] else {
            return .reply(.failure(.init(name: DBusRemoteError.Names.unknownObject, message: "no object \(path)")))
        }
        if interface == Self.propertiesInterface {
            return .reply(handleProperties(call, on: object))
        }
        if interface == Self.objectManagerInterface, object.isObjectManager {
            guard member == "GetManagedObjects" else { return .reply(.failure(.unknownMethod(member))) }
            return .reply(.success([managedObjects(under: object.path)]))
        }
        let candidates = interface.map { name in object.interfaces.filter { $0.name == name } } ?? object.interfaces
        if let interface, candidates.isEmpty {
            return .reply(
                .failure(.init(name: DBusRemoteError.Names.unknownInterface, message: "\(interface) not on \(path)")))
        }
        guard let method = candidates.lazy.compactMap({ $0.method(named: member) }).first else {
            return .reply(.failure(.unknownMethod("\(interface ?? "*").\(member) not on \(path)")))
        }
        if let input = method.input, arguments.signature != input {
            return .reply(
                .failure(.invalidArgs("\(member) expects '\(input)', got '\(arguments.signature)'")))
        }
        switch method.handler {
        case .immediate(let handler):
            return .reply(handler(call))
        case .deferred(let handler):
            handler(call, DBusReplyHandle(connection: self, call: message))
            return .deferred
        }
    }

    /// Sends the one reply for `call` (nothing if the caller asked for no reply). Values that
    /// cannot be encoded turn into a `Failed` error reply.
    func sendReply(to call: Message, _ result: Result<[DBusValue], DBusRemoteError>) {
        guard call.expectsReply, isConnected else { return }
        do {
            switch result {
            case .success(let values):
                let reply = try call.makeReturn()
                do {
                    try reply.append(values)
                } catch {
                    try send(try call.makeError(.failed("could not encode the reply: \(error)")))
                    return
                }
                try send(reply)
            case .failure(let remote):
                try send(try call.makeError(remote))
            }
        } catch {
            // Out of memory or disconnected: nothing more can be sent.
        }
    }

    /// `a{oa{sa{sv}}}` of every exported object below `root`.
    func managedObjects(under root: ObjectPath) -> DBusValue {
        let entries = exports.objects.keys.filter { $0.isDescendant(of: root) }.sorted().map { path in
            let object = exports.objects[path]!
            let interfaces = object.interfaces.map { interface in
                (key: DBusValue.string(interface.name), value: DBusValue.stringDict(interface.propertyValues()))
            }
            return (
                key: DBusValue.objectPath(path),
                value: DBusValue.dictionary(key: .string, value: "a{sv}", interfaces)
            )
        }
        return .dictionary(key: .objectPath, value: "a{sa{sv}}", entries)
    }
}
