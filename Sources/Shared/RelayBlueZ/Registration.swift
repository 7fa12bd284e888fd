import RelayDBus

/// A registration with bluetoothd (a GATT application or an advertisement on one adapter).
/// `unregister` undoes it; an already-gone registration unregisters successfully.
public final class BlueZRegistration {
    /// The adapter it was registered on.
    public let adapter: ObjectPath
    /// Our object that was registered.
    public let object: ObjectPath
    /// Whether it is (as far as we know) still registered.
    public private(set) var isActive = true
    private let client: BlueZClient
    private let interface: String
    private let method: String
    private let onEnd: () -> Void

    init(
        client: BlueZClient, adapter: ObjectPath, object: ObjectPath, interface: String, unregisterMethod: String,
        onEnd: @escaping () -> Void
    ) {
        self.client = client
        self.adapter = adapter
        self.object = object
        self.interface = interface
        self.method = unregisterMethod
        self.onEnd = onEnd
    }

    /// Marks it gone without calling bluetoothd (it released us, or it stopped).
    func invalidate() {
        guard isActive else { return }
        isActive = false
        onEnd()
    }

    /// Unregisters; completes with success if it was already gone.
    public func unregister(completion: @escaping (Result<Void, BlueZError>) -> Void = { _ in }) {
        guard isActive else {
            client.loop.schedule(after: 0) { completion(.success(())) }
            return
        }
        invalidate()
        client.callVoid(adapter, interface, method, [.objectPath(object)]) { result in
            switch result {
            case .failure(let error) where error.meansAlreadyGone:
                completion(.success(()))
            default:
                completion(result)
            }
        }
    }
}
