import RelayDBus
import RelayProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The D-Bus face of the application: `GattService1` and `GattCharacteristic1` objects.
extension GattApplication {
    func serviceInterface(_ service: LocalService) -> ExportedInterface {
        ExportedInterface(
            BlueZInterface.gattService,
            properties: [
                ExportedProperty("UUID", signature: .string) { .string(service.uuid.description) },
                ExportedProperty("Primary", signature: .boolean) { .boolean(service.primary) },
            ])
    }

    func characteristicInterface(_ state: CharacteristicState) -> ExportedInterface {
        let spec = state.spec
        let uuid = spec.uuid
        var properties = [
            ExportedProperty("UUID", signature: .string) { .string(uuid.description) },
            ExportedProperty("Service", signature: .objectPath) { .objectPath(state.service) },
            ExportedProperty("Flags", signature: .array(of: .string)) { .strings(spec.flags.bluezStrings) },
            ExportedProperty("Value", signature: .array(of: .byte)) { [weak state] in state.map { .bytes($0.value) } },
        ]
        var methods = [
            ExportedMethod("ReadValue", input: "a{sv}", output: "ay") { [weak self] call in
                self?.handleRead(uuid, call) ?? .failure(Self.gone)
            },
            ExportedMethod("WriteValue", input: "aya{sv}") { [weak self] call in
                self?.handleWrite(uuid, call) ?? .failure(Self.gone)
            },
        ]
        if !spec.flags.isDisjoint(with: [.notify, .indicate]) {
            // No `Notifying` property: BlueZ keeps its own per-device subscription state for
            // served characteristics, and a stale `Notifying` would make a second subscriber skip
            // `StartNotify` in mocks that read it.
            methods += [
                ExportedMethod("StartNotify", input: "") { [weak self] _ in
                    self?.handleStartNotify(uuid) ?? .failure(Self.gone)
                },
                ExportedMethod("StopNotify", input: "") { [weak self] _ in
                    self?.handleStopNotify(uuid) ?? .failure(Self.gone)
                },
                ExportedMethod("Confirm", input: "") { [weak self] _ in
                    self?.onEvent?(.confirmed(uuid))
                    return .success([])
                },
            ]
        }
        if spec.supportsAcquireWrite {
            properties.append(
                ExportedProperty("WriteAcquired", signature: .boolean) { [weak state] in
                    .boolean(state?.writeLink?.isOpen == true)
                })
            methods.append(
                ExportedMethod("AcquireWrite", input: "a{sv}", output: "hq") { [weak self] call in
                    self?.handleAcquire(uuid, call, forWrite: true) ?? .failure(Self.gone)
                })
        }
        if spec.supportsAcquireNotify {
            properties.append(
                ExportedProperty("NotifyAcquired", signature: .boolean) { [weak state] in
                    .boolean(state?.notifyLink?.isOpen == true)
                })
            methods.append(
                ExportedMethod("AcquireNotify", input: "a{sv}", output: "hq") { [weak self] call in
                    self?.handleAcquire(uuid, call, forWrite: false) ?? .failure(Self.gone)
                })
        }
        return ExportedInterface(BlueZInterface.gattCharacteristic, methods: methods, properties: properties)
    }

    static var gone: DBusRemoteError { GattError.failed("application gone").remote }

    private func options(_ call: DBusMethodCall, at index: Int) -> GattRequest {
        GattRequest(options: index < call.arguments.count ? call.arguments[index].asDictionary ?? [:] : [:])
    }

    func handleRead(_ uuid: BluetoothUUID, _ call: DBusMethodCall) -> Result<[DBusValue], DBusRemoteError> {
        guard let state = characteristics[uuid] else { return .failure(Self.gone) }
        let request = options(call, at: 0)
        let offset = Int(request.offset)
        guard offset <= state.value.count else {
            return .failure(GattError.invalidOffset(offset: offset, length: state.value.count).remote)
        }
        let value = Array(state.value[offset...])
        onEvent?(.read(uuid, request))
        return .success([.bytes(value)])
    }

    func handleWrite(_ uuid: BluetoothUUID, _ call: DBusMethodCall) -> Result<[DBusValue], DBusRemoteError> {
        guard let state = characteristics[uuid] else { return .failure(Self.gone) }
        guard let value = call.arguments.first?.asBytes else {
            return .failure(GattError.invalidArguments("WriteValue expects (aya{sv})").remote)
        }
        let request = options(call, at: 1)
        if request.prepareAuthorize { return .success([]) }
        if state.spec.keepsWrites {
            let offset = Int(request.offset)
            guard offset <= state.value.count else {
                return .failure(GattError.invalidOffset(offset: offset, length: state.value.count).remote)
            }
            state.value = Array(state.value[..<offset]) + value
        }
        onEvent?(.written(uuid, value: value, request))
        return .success([])
    }

    func handleStartNotify(_ uuid: BluetoothUUID) -> Result<[DBusValue], DBusRemoteError> {
        guard let state = characteristics[uuid] else { return .failure(Self.gone) }
        state.notifySessions += 1
        if state.notifySessions == 1 {
            onEvent?(.notifyStarted(uuid))
        }
        return .success([])
    }

    func handleStopNotify(_ uuid: BluetoothUUID) -> Result<[DBusValue], DBusRemoteError> {
        guard let state = characteristics[uuid] else { return .failure(Self.gone) }
        guard state.notifySessions > 0 else {
            return .failure(GattError.failed("No notify session started").remote)
        }
        state.notifySessions -= 1
        if state.notifySessions == 0 {
            onEvent?(.notifyStopped(uuid))
        }
        return .success([])
    }

    func handleAcquire(
        _ uuid: BluetoothUUID, _ call: DBusMethodCall, forWrite: Bool
    ) -> Result<[DBusValue], DBusRemoteError> {
        guard let state = characteristics[uuid] else { return .failure(Self.gone) }
        let existing = forWrite ? state.writeLink : state.notifyLink
        // One socket per characteristic. BlueZ 5.69 and later ask once per device: a refusal
        // with NotPermitted (not Failed) makes bluetoothd subscribe that device with
        // StartNotify instead, and `notify` then sends by signal, which reaches every device.
        if existing?.isOpen == true {
            return .failure(GattError.notPermitted(forWrite ? "Write acquired" : "Notify acquired").remote)
        }
        let request = options(call, at: 0)
        let mtu = request.mtu ?? .default
        var fds: [Int32] = [-1, -1]
        let kind = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &fds) == 0 else {
            return .failure(GattError.failed("socketpair: errno \(errno)").remote)
        }
        let link = AcquiredLink(fd: fds[0], mtu: mtu, loop: client.loop)
        let handedOver = FileDescriptor(owning: fds[1])
        let propertyName = forWrite ? "WriteAcquired" : "NotifyAcquired"
        link.onEvent = { [weak self, weak state, weak link] event in
            guard let self, let state, let link else { return }
            switch event {
            case .received(let bytes):
                if forWrite {
                    self.onEvent?(.written(uuid, value: bytes, request))
                    if state.spec.keepsWrites { state.value = bytes }
                } else {
                    self.onEvent?(.confirmed(uuid))
                }
            case .writable:
                if !forWrite { self.onEvent?(.notifyWritable(uuid)) }
            case .closed:
                if forWrite, state.writeLink === link { state.writeLink = nil }
                if !forWrite, state.notifyLink === link { state.notifyLink = nil }
                try? state.object?.emitPropertiesChanged(
                    interface: BlueZInterface.gattCharacteristic, names: [propertyName])
                self.onEvent?(forWrite ? .writeReleased(uuid) : .notifyReleased(uuid))
            }
        }
        if forWrite { state.writeLink = link } else { state.notifyLink = link }
        try? state.object?.emitPropertiesChanged(interface: BlueZInterface.gattCharacteristic, names: [propertyName])
        onEvent?(forWrite ? .writeAcquired(uuid, request) : .notifyAcquired(uuid, request))
        return .success([.unixFD(handedOver), .uint16(UInt16(mtu.value))])
    }
}
