import RelayProtocol

/// A characteristic our GATT application serves.
public struct LocalCharacteristic: Sendable {
    public let uuid: BluetoothUUID
    public var flags: CharacteristicFlags
    /// The initial value (answered to reads until written, notified or set).
    public var value: [UInt8]
    /// Whether a remote write becomes the value reads answer. When false, only the owner's
    /// `GattApplication.setValue` changes it (the owner decides which writes count).
    public var keepsWrites: Bool
    /// Offer `AcquireWrite` (the `WriteAcquired` property): BlueZ may then deliver write
    /// commands through a socket. Note: BlueZ 5.66 opens one socket per characteristic, so the
    /// writer's device is only known for the first writer; and up to 5.82 at least, the writes
    /// that arrive while the call is unanswered reach the socket with the bytes their ATT buffer
    /// holds when it is answered (relay-peripheral does not offer it).
    public var supportsAcquireWrite: Bool
    /// Offer `AcquireNotify` (the `NotifyAcquired` property): BlueZ then takes notifications
    /// through a socket, with writable-ready as flow control.
    public var supportsAcquireNotify: Bool

    public init(
        uuid: BluetoothUUID, flags: CharacteristicFlags, value: [UInt8] = [], keepsWrites: Bool = true,
        supportsAcquireWrite: Bool = false, supportsAcquireNotify: Bool = false
    ) {
        self.uuid = uuid
        self.flags = flags
        self.value = value
        self.keepsWrites = keepsWrites
        self.supportsAcquireWrite = supportsAcquireWrite
        self.supportsAcquireNotify = supportsAcquireNotify
    }
}

/// A service our GATT application serves.
public struct LocalService: Sendable {
    public let uuid: BluetoothUUID
    public var primary: Bool
    public var characteristics: [LocalCharacteristic]

    public init(uuid: BluetoothUUID, primary: Bool = true, characteristics: [LocalCharacteristic]) {
        self.uuid = uuid
        self.primary = primary
        self.characteristics = characteristics
    }
}

/// What happens to our GATT application, delivered to one handler.
public enum GattServerEvent: Sendable {
    /// A remote read was answered (with the value from `request.offset`).
    case read(BluetoothUUID, GattRequest)
    /// A remote write (request or command, through `WriteValue` or an acquired socket) was accepted.
    case written(BluetoothUUID, value: [UInt8], GattRequest)
    /// BlueZ started notifications (`StartNotify`: the first central subscribed).
    case notifyStarted(BluetoothUUID)
    /// BlueZ stopped notifications (`StopNotify`: the last central unsubscribed).
    case notifyStopped(BluetoothUUID)
    /// BlueZ acquired the notification socket (`AcquireNotify`).
    case notifyAcquired(BluetoothUUID, GattRequest)
    /// The notification socket was closed (unsubscribed or disconnected).
    case notifyReleased(BluetoothUUID)
    /// The notification socket can take more after `notify` returned `.wouldBlock`.
    case notifyWritable(BluetoothUUID)
    /// BlueZ acquired the write socket (`AcquireWrite`).
    case writeAcquired(BluetoothUUID, GattRequest)
    /// The write socket was closed.
    case writeReleased(BluetoothUUID)
    /// An indication was confirmed.
    case confirmed(BluetoothUUID)
    /// BlueZ released the application, or bluetoothd went away: register again to serve.
    case unregistered
}

/// The outcome of `GattApplication.notify`.
public enum NotifyResult: Sendable, Equatable {
    /// Handed to BlueZ (through `PropertiesChanged`, the acquired socket, or both).
    case sent
    /// The acquired socket is full: retry the same value after `.notifyWritable`.
    case wouldBlock
    /// Nobody is subscribed; the value was stored for reads only.
    case notSubscribed
    /// The value could not be handed over.
    case failed(BlueZError)
}
