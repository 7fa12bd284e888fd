/// Whether bluetoothd gives each connected device its own `AcquireWrite` socket.
public enum WriteSocketSharing: String, Sendable, Equatable {
    /// Not learnt yet: a socket is taken only while its device is the only one connected.
    case unknown
    /// One socket per device (BlueZ 5.69 and later, bluez#460): every datagram is its device's.
    case perDevice = "per-device"
    /// One socket per characteristic for every device (BlueZ 5.66): a datagram names nobody, so
    /// writes come through `WriteValue` only, which names its device in every call.
    case shared
}

/// When our GATT application takes a write socket from bluetoothd (`AcquireWrite`), and what
/// bluetoothd's behaviour says about how it shares them. A plain value: time is an input, and
/// the application performs the actions it returns.
///
/// What it rests on (read in BlueZ 5.66 and 5.82, `src/gatt-database.c`):
/// - 5.66 keeps one write socket per characteristic, used for every device's writes until we
///   close it; a device's disconnection leaves it open.
/// - 5.69 and later keep one per device and shut it down when that device's ATT link ends.
/// - Both queue the writes that arrive while an `AcquireWrite` is unanswered, whichever device
///   sent them, and flush them all into the socket we answer with.
///
/// So a socket is taken only when its datagrams cannot be another device's: while sharing is
/// unknown, only when its device is the only one connected (and every socket is closed when a
/// second device connects); with per-device sockets, only when every other connected device
/// already has its own socket for that characteristic (else another device's write arriving
/// during the call would be flushed into it). A device that leaves while its socket stays open
/// for `grace` seconds shows shared sockets; one whose socket hangs up within `grace` of its
/// leaving shows per-device sockets. Once shared is learnt no socket is offered again (until
/// bluetoothd restarts: `reset`).
public struct WriteSocketPolicy: Sendable {
    /// What the application does for the policy.
    public enum Action: Sendable, Equatable {
        /// Read what this device's write sockets hold (it is that device's), then close them.
        case close(DeviceID)
        /// Offer `WriteAcquired` on these characteristics or stop offering it (invalidated, so
        /// that bluetoothd sends writes through `WriteValue` without asking first).
        case offer([BluetoothUUID], Bool)
        /// The sharing was learnt.
        case learned(WriteSocketSharing)
    }

    /// How long a leaving device's socket may stay open (or have hung up before it left) for
    /// the leaving to say how bluetoothd shares sockets.
    public static let grace = 2.0

    /// What bluetoothd's behaviour has shown so far.
    public private(set) var sharing: WriteSocketSharing = .unknown
    /// The characteristics that offer `AcquireWrite`.
    public let characteristics: [BluetoothUUID]
    /// The devices connected to us.
    public private(set) var connected: Set<DeviceID> = []
    /// The open write sockets, per characteristic.
    public private(set) var sockets: [BluetoothUUID: Set<DeviceID>] = [:]
    /// Devices that left with a socket open while sharing was unknown: when the wait ends.
    private var leaving: [DeviceID: Double] = [:]
    /// Devices whose socket bluetoothd hung up while they were connected: when.
    private var hungUp: [DeviceID: Double] = [:]

    /// A policy for these characteristics.
    public init(characteristics: [BluetoothUUID]) {
        self.characteristics = characteristics
    }

    /// Whether `WriteAcquired` is offered on `characteristic` now.
    public func offers(_ characteristic: BluetoothUUID) -> Bool {
        guard characteristics.contains(characteristic) else { return false }
        switch sharing {
        case .shared: return false
        case .unknown: return connected.count <= 1 && leaving.isEmpty
        case .perDevice: return connected.subtracting(sockets[characteristic] ?? []).count <= 1
        }
    }

    /// The devices with an open write socket on any characteristic.
    public var devicesWithSockets: Set<DeviceID> {
        sockets.values.reduce(into: Set<DeviceID>()) { $0.formUnion($1) }
    }

    /// The earliest time `tick` has something to do, if any.
    public var nextDeadline: Double? {
        (Array(leaving.values) + hungUp.values.map { $0 + Self.grace }).min()
    }

    /// bluetoothd asks for `device`'s write socket on `characteristic`: whether to hand one
    /// over (else the call is refused so that bluetoothd sends the writes through `WriteValue`).
    /// A socket handed over must be reported with `opened`.
    public mutating func shouldAccept(_ device: DeviceID, on characteristic: BluetoothUUID) -> Bool {
        guard characteristics.contains(characteristic) else { return false }
        let others = connected.subtracting([device])
        switch sharing {
        case .shared:
            return false
        case .unknown:
            return others.isEmpty && leaving.isEmpty
        case .perDevice:
            return others.subtracting(sockets[characteristic] ?? []).isEmpty
        }
    }

    /// A socket was handed over for `device` on `characteristic`.
    public mutating func opened(_ device: DeviceID, on characteristic: BluetoothUUID) -> [Action] {
        let before = offerings
        connected.insert(device)
        sockets[characteristic, default: []].insert(device)
        return offerChanges(from: before)
    }

    /// `device` connected.
    public mutating func deviceConnected(_ device: DeviceID) -> [Action] {
        guard !connected.contains(device) else { return [] }
        let before = offerings
        connected.insert(device)
        var actions: [Action] = []
        if sharing == .unknown {
            // On a shared socket this device's writes would arrive as another's: close them all.
            for owner in devicesWithSockets where owner != device {
                actions.append(.close(owner))
                removeSockets(of: owner)
            }
            leaving = [:]
        }
        return actions + offerChanges(from: before)
    }

    /// `device` disconnected.
    public mutating func deviceDisconnected(_ device: DeviceID, now: Double) -> [Action] {
        let before = offerings
        guard connected.remove(device) != nil else { return [] }
        var actions: [Action] = []
        let hasSockets = devicesWithSockets.contains(device)
        if sharing == .unknown {
            if let hangUp = hungUp.removeValue(forKey: device), now - hangUp <= Self.grace, !hasSockets {
                actions += learn(.perDevice)
            } else if hasSockets {
                leaving[device] = now + Self.grace
            }
        }
        // Per-device sockets hang up with their device: bluetoothd flushes its last writes
        // into them first, so they are read to the end rather than closed here.
        hungUp[device] = nil
        return actions + offerChanges(from: before)
    }

    /// bluetoothd hung up `device`'s socket on `characteristic` (not closed by us).
    public mutating func hungUp(_ device: DeviceID, on characteristic: BluetoothUUID, now: Double) -> [Action] {
        let before = offerings
        sockets[characteristic]?.remove(device)
        var actions: [Action] = []
        if sharing == .unknown {
            if leaving[device] != nil {
                if !devicesWithSockets.contains(device) {
                    leaving[device] = nil
                    actions += learn(.perDevice)
                }
            } else if connected.contains(device) {
                hungUp[device] = now
            }
        }
        return actions + offerChanges(from: before)
    }

    /// The time is `now`: a leaving device's socket still open after `grace` shows shared sockets.
    public mutating func tick(now: Double) -> [Action] {
        hungUp = hungUp.filter { now - $0.value <= Self.grace }
        guard sharing == .unknown, leaving.values.contains(where: { $0 <= now }) else { return [] }
        let before = offerings
        var actions: [Action] = []
        for owner in devicesWithSockets.sorted() {
            actions.append(.close(owner))
            removeSockets(of: owner)
        }
        leaving = [:]
        sharing = .shared
        return actions + [.learned(.shared)] + offerChanges(from: before)
    }

    /// bluetoothd went away or our application was unregistered: every socket is gone, and the
    /// next bluetoothd is learnt anew.
    public mutating func reset() -> [Action] {
        let before = offerings
        sharing = .unknown
        connected = []
        sockets = [:]
        leaving = [:]
        hungUp = [:]
        return offerChanges(from: before)
    }

    private mutating func learn(_ learnt: WriteSocketSharing) -> [Action] {
        guard sharing != learnt else { return [] }
        sharing = learnt
        return [.learned(learnt)]
    }

    private mutating func removeSockets(of device: DeviceID) {
        for characteristic in sockets.keys { sockets[characteristic]?.remove(device) }
    }

    private var offerings: [Bool] { characteristics.map(offers) }

    private func offerChanges(from before: [Bool]) -> [Action] {
        let after = offerings
        let started = characteristics.indices.filter { after[$0] && !before[$0] }.map { characteristics[$0] }
        let stopped = characteristics.indices.filter { !after[$0] && before[$0] }.map { characteristics[$0] }
        return (started.isEmpty ? [] : [.offer(started, true)]) + (stopped.isEmpty ? [] : [.offer(stopped, false)])
    }
}
