import RelayDBus
import RelayProtocol

/// Remote device and GATT client operations (`org.bluez.Device1`, `org.bluez.GattCharacteristic1`).
extension BlueZClient {
    /// Connects; success means connected (services resolve later: watch `ServicesResolved`).
    func connect(
        device: ObjectPath, timeout: Double = 40, completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        callVoid(device, BlueZInterface.device, "Connect", timeout: timeout, completion: completion)
    }

    /// Disconnects.
    func disconnect(device: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        callVoid(device, BlueZInterface.device, "Disconnect", completion: completion)
    }

    /// The characteristic with `characteristic` UUID in the service with `service` UUID of `device`.
    func characteristic(
        _ characteristic: BluetoothUUID, service: BluetoothUUID, device: ObjectPath
    ) -> GattCharacteristicSnapshot? {
        guard let found = tree.service(service, of: device) else { return nil }
        return tree.characteristic(characteristic, in: found.path)
    }

    /// Reads the value (from `offset`).
    func readValue(
        characteristic: ObjectPath, offset: UInt16 = 0, completion: @escaping (Result<[UInt8], BlueZError>) -> Void
    ) {
        var options: [String: DBusValue] = [:]
        if offset > 0 { options["offset"] = .uint16(offset) }
        call(characteristic, BlueZInterface.gattCharacteristic, "ReadValue", [.stringDict(options)]) { result in
            completion(
                result.flatMap { values in
                    guard values.count == 1, let bytes = values[0].asBytes else {
                        return .failure(.shape("ReadValue reply is not (ay)"))
                    }
                    return .success(bytes)
                })
        }
    }

    /// Writes the value with a write command (`command`), request (`request`) or reliable write.
    func writeValue(
        _ value: [UInt8], characteristic: ObjectPath, type: WriteType, offset: UInt16 = 0,
        completion: @escaping (Result<Void, BlueZError>) -> Void
    ) {
        var options: [String: DBusValue] = ["type": .string(type.rawValue)]
        if offset > 0 { options["offset"] = .uint16(offset) }
        callVoid(
            characteristic, BlueZInterface.gattCharacteristic, "WriteValue",
            [.bytes(value), .stringDict(options)], completion: completion)
    }

    /// Starts notifications; values arrive as `.gatt(.valueChanged)` events.
    func startNotify(characteristic: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        callVoid(characteristic, BlueZInterface.gattCharacteristic, "StartNotify", completion: completion)
    }

    /// Stops this client's notification session.
    func stopNotify(characteristic: ObjectPath, completion: @escaping (Result<Void, BlueZError>) -> Void) {
        callVoid(characteristic, BlueZInterface.gattCharacteristic, "StopNotify", completion: completion)
    }

    /// Acquires a socket to write commands through: one `send` per value (at most `mtu - 3`
    /// bytes); `.wouldBlock` then `.writable` paces the sender. Closing the link releases it.
    /// BlueZ waits for the MTU exchange before answering, so the MTU is the negotiated one.
    func acquireWrite(
        characteristic: ObjectPath, completion: @escaping (Result<AcquiredLink, BlueZError>) -> Void
    ) {
        acquire("AcquireWrite", characteristic, completion: completion)
    }

    /// Acquires a socket that receives each notification as one datagram (instead of
    /// `Value` changes). Closing the link stops notifications.
    func acquireNotify(
        characteristic: ObjectPath, completion: @escaping (Result<AcquiredLink, BlueZError>) -> Void
    ) {
        acquire("AcquireNotify", characteristic, completion: completion)
    }

    private func acquire(
        _ method: String, _ characteristic: ObjectPath,
        completion: @escaping (Result<AcquiredLink, BlueZError>) -> Void
    ) {
        let loop = self.loop
        call(characteristic, BlueZInterface.gattCharacteristic, method, [.stringDict([:])]) { result in
            completion(
                result.flatMap { values in
                    guard values.count == 2, let descriptor = values[0].asFileDescriptor, let mtu = values[1].asUInt16,
                        let fd = descriptor.take()
                    else { return .failure(.shape("\(method) reply is not (hq)")) }
                    return .success(AcquiredLink(fd: fd, mtu: MTU(clamping: Int(mtu)), loop: loop))
                })
        }
    }
}
