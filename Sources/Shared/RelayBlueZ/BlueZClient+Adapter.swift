import RelayDBus

/// Adapter operations (`org.bluez.Adapter1`).
extension BlueZClient {
    /// Switches the adapter on or off (`Powered`).
    func setPowered(
        _ powered: Bool, adapter: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        setProperty(adapter, BlueZInterface.adapter, "Powered", .boolean(powered), completion: completion)
    }

    /// Sets the discovery filter for this client's discovery sessions.
    func setDiscoveryFilter(
        _ filter: DiscoveryFilter, adapter: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        callVoid(adapter, BlueZInterface.adapter, "SetDiscoveryFilter", [filter.dbusValue], completion: completion)
    }

    /// Starts discovery; devices arrive as `.device(.added)` and `.device(.changed)` events.
    func startDiscovery(adapter: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        callVoid(adapter, BlueZInterface.adapter, "StartDiscovery", completion: completion)
    }

    /// Stops this client's discovery session.
    func stopDiscovery(adapter: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        callVoid(adapter, BlueZInterface.adapter, "StopDiscovery", completion: completion)
    }

    /// Removes a device (and its bonding) from the adapter.
    func removeDevice(
        _ device: ObjectPath, adapter: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        callVoid(adapter, BlueZInterface.adapter, "RemoveDevice", [.objectPath(device)], completion: completion)
    }
}
