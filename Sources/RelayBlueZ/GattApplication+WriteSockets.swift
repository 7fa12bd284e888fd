import RelayDBus
import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// Write sockets (`AcquireWrite`): taken per device as `WriteSocketPolicy` allows; their
/// datagrams are reported as writes of the device named in the call.
extension GattApplication {
    /// A device connected to the adapter our application serves.
    public func deviceConnected(_ device: DeviceID) {
        for state in characteristics.values { state.writeLinks.removeValue(forKey: nil)?.drainAndClose() }
        perform(writeSockets.deviceConnected(device))
    }

    /// A device disconnected from the adapter our application serves.
    public func deviceDisconnected(_ device: DeviceID) {
        perform(writeSockets.deviceDisconnected(device, now: client.loop.now))
    }

    /// The devices with an open write socket (not one bluetoothd named no device for).
    public var devicesWithWriteSockets: Set<DeviceID> { writeSockets.devicesWithSockets }

    /// The value of `WriteAcquired`: absent while the policy does not offer sockets, so that
    /// bluetoothd sends writes through `WriteValue` without asking.
    func writeAcquiredProperty(_ uuid: BluetoothUUID) -> DBusValue? {
        guard writeSockets.offers(uuid), let state = characteristics[uuid] else { return nil }
        return .boolean(!state.writeLinks.isEmpty)
    }

    /// Performs the policy's actions and keeps its timer.
    func perform(_ actions: [WriteSocketPolicy.Action]) {
        for action in actions {
            switch action {
            case .close(let device):
                for state in characteristics.values {
                    // Removed first: the datagrams drained are still reported, the closing is not
                    // a hang-up.
                    state.writeLinks.removeValue(forKey: device)?.drainAndClose()
                }
                onEvent?(.writeSocketsChanged(writeSockets.sharing))
            case .offer(let uuids, _):
                for uuid in uuids {
                    try? characteristics[uuid]?.object?.emitPropertiesChanged(
                        interface: BlueZInterface.gattCharacteristic, names: ["WriteAcquired"])
                }
            case .learned(let sharing):
                onEvent?(.writeSocketsChanged(sharing))
            }
        }
        if let writeSocketTimer { client.loop.cancel(writeSocketTimer) }
        writeSocketTimer = nil
        if let deadline = writeSockets.nextDeadline {
            writeSocketTimer = client.loop.schedule(after: max(0, deadline - client.loop.now) + 0.01) { [weak self] in
                guard let self else { return }
                self.writeSocketTimer = nil
                self.perform(self.writeSockets.tick(now: self.client.loop.now))
            }
        }
    }

    /// `AcquireWrite`: a socket for the device named in the call when the policy allows, else
    /// a refusal that bluetoothd answers by sending the waiting writes through `WriteValue`.
    /// (`NotAvailable` maps to no ATT error in bluetoothd, which makes it fall back; an error
    /// that maps to one, `NotPermitted` say, would make BlueZ 5.66 hold the waiting writes for
    /// good.)
    func handleAcquireWrite(_ uuid: BluetoothUUID, _ call: DBusMethodCall) -> Result<[DBusValue], DBusRemoteError> {
        guard let state = characteristics[uuid] else { return .failure(Self.gone) }
        let request = GattRequest(options: call.arguments.first?.asDictionary ?? [:])
        // bluetoothd names the device in every call. A call that names none (a mock forwarding a
        // client's own call) gets a socket only while no device is known, closed when one connects.
        let device = request.deviceID
        let allowed =
            device.map { writeSockets.shouldAccept($0, on: uuid) }
            ?? (writeSockets.connected.isEmpty && writeSockets.sharing != .shared && writeSockets.offers(uuid))
        guard allowed else {
            return .failure(DBusRemoteError(name: "org.bluez.Error.NotAvailable", message: "write through WriteValue"))
        }
        var fds: [Int32] = [-1, -1]
        let kind = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &fds) == 0 else {
            return .failure(
                DBusRemoteError(name: "org.bluez.Error.NotAvailable", message: "socketpair: errno \(errno)"))
        }
        // bluetoothd's end sends without blocking and drops a write it cannot queue: give it
        // the largest send buffer allowed, so that a stalled reader loses nothing for longer.
        var size = Int32(4 << 20)
        _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let link = AcquiredLink(fd: fds[0], mtu: request.mtu ?? .default, loop: client.loop)
        let handedOver = FileDescriptor(owning: fds[1])
        link.onEvent = { [weak self, weak state, weak link] event in
            guard let self, let state, let link else { return }
            switch event {
            case .received(let bytes):
                state.value = bytes
                self.onEvent?(.written(uuid, value: bytes, request))
            case .writable:
                break
            case .closed:
                guard state.writeLinks[device] === link else { return }
                state.writeLinks[device] = nil
                if let device { self.perform(self.writeSockets.hungUp(device, on: uuid, now: self.client.loop.now)) }
                self.onEvent?(.writeSocketsChanged(self.writeSockets.sharing))
            }
        }
        state.writeLinks.removeValue(forKey: device)?.drainAndClose()
        state.writeLinks[device] = link
        if let device { perform(writeSockets.opened(device, on: uuid)) }
        onEvent?(.writeAcquired(uuid, request))
        onEvent?(.writeSocketsChanged(writeSockets.sharing))
        return .success([.unixFD(handedOver), .uint16(UInt16(request.mtu?.value ?? MTU.default.value))])
    }
}
