import RelayDBus

/// What a pairing agent can do, as told to `AgentManager1.RegisterAgent`: it decides the
/// pairing method (a display on one side and a keyboard on the other gives passkey entry).
public enum AgentCapability: String, Sendable {
    /// Shows a passkey (relay-peripheral: the central types what it shows).
    case displayOnly = "DisplayOnly"
    /// Types a passkey (relay-central).
    case keyboardOnly = "KeyboardOnly"
}

/// What bluetoothd asked the agent, for its owner to show or answer.
public enum AgentRequest {
    /// Show `passkey` for `device`; `entered` counts the digits typed on the other side so far
    /// (bluetoothd calls again as they are typed).
    case displayPasskey(device: DeviceID, passkey: Passkey, entered: UInt16)
    /// Type the passkey `device` shows: answer through `reply` (once).
    case requestPasskey(device: DeviceID, reply: PasskeyReply)
    /// Pairing without a passkey (just works, or a confirmation) was asked and refused: this
    /// agent pairs with a passkey only.
    case refusedWithoutPasskey(device: DeviceID)
    /// bluetoothd cancelled the request in progress (a time-out, or the other side gave up).
    case cancelled
    /// bluetoothd released the agent (it stops, or the agent was unregistered).
    case released
}

/// The pending answer to `RequestPasskey`: a passkey, or a refusal (the pairing fails).
public final class PasskeyReply {
    private let handle: DBusReplyHandle

    init(_ handle: DBusReplyHandle) { self.handle = handle }

    /// Whether it was answered (or cancelled) already.
    public var isAnswered: Bool { handle.isAnswered }

    /// Answers with the passkey.
    public func answer(_ passkey: Passkey) { handle.succeed([.uint32(passkey.value)]) }

    /// Refuses: bluetoothd fails the pairing.
    public func refuse() { handle.fail(DBusRemoteError(name: "org.bluez.Error.Rejected", message: "refused")) }
}

/// Our `org.bluez.Agent1` object, registered with `AgentManager1`: bluetoothd asks it for
/// passkeys during pairing. Passkey pairing only: a request to pair without one (just works,
/// numeric comparison, a PIN) is refused, so no unauthenticated bond is made through it.
public final class PairingAgent {
    /// The object path (e.g. `/org/relay/agent`).
    public let path: ObjectPath
    public let capability: AgentCapability
    /// Called with each request, on the loop.
    public var onRequest: ((AgentRequest) -> Void)?
    /// Whether bluetoothd has it registered (as far as we know).
    public private(set) var isRegistered = false

    private let client: BlueZClient
    private var exported = false
    private var ownerObserver: Int?

    public init(client: BlueZClient, capability: AgentCapability, path: ObjectPath = "/org/relay/agent") {
        self.client = client
        self.capability = capability
        self.path = path
    }

    deinit {
        if let ownerObserver { client.removeOwnerObserver(ownerObserver) }
        if exported { client.connection.unexport(path) }
    }

    private static let rejected = DBusRemoteError(name: "org.bluez.Error.Rejected", message: "passkey pairing only")

    private func makeInterface() -> ExportedInterface {
        let report: (AgentRequest) -> Void = { [weak self] request in self?.onRequest?(request) }
        let methods = [
            ExportedMethod("Release", input: "") { [weak self] _ in
                self?.isRegistered = false
                report(.released)
                return .success([])
            },
            ExportedMethod("DisplayPasskey", input: "ouq") { call in
                guard case .objectPath(let device) = call.arguments[0], case .uint32(let raw) = call.arguments[1],
                    case .uint16(let entered) = call.arguments[2], let passkey = Passkey(raw)
                else { return .failure(Self.rejected) }
                report(.displayPasskey(device: DeviceID(device), passkey: passkey, entered: entered))
                return .success([])
            },
            .deferred("RequestPasskey", input: "o", output: "u") { call, handle in
                guard case .objectPath(let device) = call.arguments[0] else { return handle.fail(Self.rejected) }
                report(.requestPasskey(device: DeviceID(device), reply: PasskeyReply(handle)))
            },
            ExportedMethod("RequestConfirmation", input: "ou") { call in
                if case .objectPath(let device) = call.arguments[0] {
                    report(.refusedWithoutPasskey(device: DeviceID(device)))
                }
                return .failure(Self.rejected)
            },
            ExportedMethod("RequestAuthorization", input: "o") { call in
                if case .objectPath(let device) = call.arguments[0] {
                    report(.refusedWithoutPasskey(device: DeviceID(device)))
                }
                return .failure(Self.rejected)
            },
            ExportedMethod("RequestPinCode", input: "o", output: "s") { _ in .failure(Self.rejected) },
            ExportedMethod("DisplayPinCode", input: "os") { _ in .failure(Self.rejected) },
            ExportedMethod("AuthorizeService", input: "os") { _ in .failure(Self.rejected) },
            ExportedMethod("Cancel", input: "") { _ in
                report(.cancelled)
                return .success([])
            },
        ]
        return ExportedInterface(BlueZInterface.agent, methods: methods)
    }

    /// Exports the object and registers it with bluetoothd; `asDefault` also makes it the
    /// default agent (the one asked about pairings a remote device starts, and whose capability
    /// bluetoothd gives every adapter). A pairing we start with `Device1.Pair` asks this agent
    /// either way.
    public func register(asDefault: Bool, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        if !exported {
            do {
                try client.connection.export(ExportedObject(path: path, interfaces: [makeInterface()]))
            } catch {
                client.loop.schedule(after: 0) { completion(.failure(BlueZError(error))) }
                return
            }
            exported = true
        }
        if ownerObserver == nil {
            ownerObserver = client.observeOwner { [weak self] owner in
                if owner == nil, let self, self.isRegistered {
                    self.isRegistered = false
                    self.onRequest?(.released)
                }
            }
        }
        let manager: ObjectPath = "/org/bluez"
        client.callVoid(
            manager, BlueZInterface.agentManager, "RegisterAgent", [.objectPath(path), .string(capability.rawValue)]
        ) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error) where error.kind != .alreadyExists: return completion(.failure(error))
            default: self.isRegistered = true
            }
            guard asDefault else { return completion(.success(())) }
            self.client.callVoid(
                manager, BlueZInterface.agentManager, "RequestDefaultAgent", [.objectPath(self.path)],
                completion: completion)
        }
    }

    /// Unregisters from bluetoothd (an agent already gone unregisters successfully) and removes
    /// the object from the bus.
    public func unregister(completion: @escaping (Result<Void, BlueZError>) -> Void = { _ in }) {
        let finish: (Result<Void, BlueZError>) -> Void = { [weak self] result in
            if let self, self.exported {
                self.client.connection.unexport(self.path)
                self.exported = false
            }
            completion(result)
        }
        guard isRegistered else {
            client.loop.schedule(after: 0) { finish(.success(())) }
            return
        }
        isRegistered = false
        client.callVoid("/org/bluez", BlueZInterface.agentManager, "UnregisterAgent", [.objectPath(path)]) { result in
            switch result {
            case .failure(let error) where error.meansAlreadyGone:
                finish(.success(()))
            default:
                finish(result)
            }
        }
    }
}
