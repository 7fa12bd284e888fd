import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// Values centrals write: counters and frames through each central's inbound pipeline, and
/// partial messages that stall.
extension PeripheralSession {
    /// Seconds without a frame after which an incomplete message is dropped when its central is
    /// not (or no longer) subscribed. A central process that dies mid-message may leave its LE
    /// link up (bluetoothd owns the connection): it unsubscribes, but no disconnect would ever
    /// free the partial message.
    static let reassemblyIdleTimeout = 10.0

    /// The same while the central may still be subscribed: a live central whose link stalls for a
    /// while (a crowded radio, a paused laptop) resumes its message, which must not be lost.
    /// Memory stays bounded by `--max-message` per central meanwhile.
    static let subscribedReassemblyIdleTimeout = 120.0

    /// The idle time-out that applies to `central` now.
    static func idleTimeout(for central: ConnectedCentral) -> Double {
        central.subscribed ? subscribedReassemblyIdleTimeout : reassemblyIdleTimeout
    }

    /// The writer of a value, when bluetoothd named it: known from now on, with the MTU it gave.
    mutating func noteWriter(_ address: BluetoothAddress?, mtu: MTU?) -> [PeripheralAction] {
        guard let address else { return [] }
        return ensureCentral(address) + (mtu.map { learnMTU($0, of: address) } ?? [])
    }

    /// A value written to the write characteristic: a counter, or a frame for the writer's pipeline.
    mutating func received(
        _ bytes: [UInt8], from address: BluetoothAddress?, mtu: MTU?
    ) -> [PeripheralAction] {
        var actions = noteWriter(address, mtu: mtu)
        var central = address.flatMap { centrals.removeValue(forKey: $0) } ?? anonymous
        let sender = PeerName(.central, address)
        for event in central.inbound.receive(bytes, at: now) {
            switch event {
            case .counter(let value):
                actions += counterWritten(value, by: address)
            case .message(let message, let id, _):
                actions.append(.deliver(arrivals.next(message, id: Int(id.value), from: sender, at: now)))
            case .receiving:
                break  // the peripheral shows a message in progress in `status` only
            case .protocolError, .dropped:
                if let report = TransferEvent(event, from: sender) { actions.append(.report(.transfer(report))) }
            }
        }
        if let address { centrals[address] = central } else { anonymous = central }
        return actions
    }

    /// A counter an admitted central wrote (on the write or the session characteristic, or in
    /// a version-1 frame's place): it becomes what a read of the write characteristic returns
    /// (frames and refused centrals' values never do), it is reported, and with `--echo` it is
    /// notified back as `notify` would (to every subscriber).
    mutating func counterWritten(_ counter: Counter, by address: BluetoothAddress?) -> [PeripheralAction] {
        var actions: [PeripheralAction] = [
            .setReadValue(counter.encoded, of: .write),
            .report(.transfer(.counter(from: PeerName(.central, address), counter))),
        ]
        if settings.echo, hasSubscribers, isPoweredOn { actions += queueCounter(counter) }
        return actions
    }

    /// When the next incomplete message stalls (monotonic seconds); nil when none is in progress.
    /// The driver feeds `.tick` at (or after) that time.
    var nextReassemblyDeadline: Double? {
        ((Array(centrals.values) + [anonymous]).compactMap { central in
            central.inbound.stallDeadline(timeout: Self.idleTimeout(for: central))
        } + [delivery.nextDeadline, trace?.flushDeadline, uartDeadline, laneStallDeadline].compactMap { $0 }).min()
    }

    /// Drops every partial message whose central's idle time-out passed at `now` without a frame.
    mutating func dropStalledMessages(at now: Double) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        for address in centrals.keys.sorted() {
            guard var central = centrals[address] else { continue }
            actions += dropIfStalled(&central, at: now)
            centrals[address] = central
        }
        actions += dropIfStalled(&anonymous, at: now)
        return actions
    }

    private func dropIfStalled(_ central: inout ConnectedCentral, at now: Double) -> [PeripheralAction] {
        let timeout = Self.idleTimeout(for: central)
        guard let deadline = central.inbound.stallDeadline(timeout: timeout), now >= deadline else { return [] }
        let reason = DropReason.stalled(seconds: Int(timeout), subscribed: central.subscribed)
        guard let dropped = central.inbound.reset(because: reason),
            let event = TransferEvent(dropped, from: PeerName(.central, central.address))
        else { return [] }
        return [.report(.transfer(event))]
    }
}
