import RelayProtocol
import Shared

extension PeripheralSession {
    /// A value written to the write characteristic: a counter, or a frame for the writer's reassembler.
    mutating func received(_ bytes: [UInt8], from address: BluetoothAddress?, mtu: MTU?, time: Double) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        if let address {
            actions += ensureCentral(address)
            if let mtu { actions += learnMTU(mtu, of: address) }
        }
        lastWritten = bytes
        var central = address.flatMap { centrals.removeValue(forKey: $0) } ?? anonymous
        central.lastWritten = bytes
        for event in central.reassembler.receive(bytes) {
            switch event {
            case .counter(let value):
                central.countersReceived += 1
                actions.append(.report(.counter(from: address, value: value.value)))
                if configuration.echo, hasSubscribers, isPoweredOn {
                    outbox.append(counter: value, centrals: subscriberCount)
                    actions.append(.startSending)
                }
            case .message(let received):
                central.messagesReceived += 1
                actions += deliver(received.message, from: address)
            case .error(let error, let dropped):
                let verdict = central.errorLimiter.admit(at: time)
                actions += reportProtocolError(error, dropped: dropped, from: address, verdict: verdict)
            }
        }
        if central.reassembler.progress == nil {
            central.partialSince = nil
        } else if bytes.count != Counter.encodedLength || central.partialSince == nil {
            central.partialSince = time  // a counter in between is not progress
        }
        if let address { centrals[address] = central } else { anonymous = central }
        return actions
    }

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
    static func idleTimeout(for central: CentralState) -> Double {
        central.subscribed ? subscribedReassemblyIdleTimeout : reassemblyIdleTimeout
    }

    /// When the next incomplete message stalls (monotonic seconds); nil when none is in progress.
    /// The driver feeds `.tick(now:)` at (or after) that time.
    var nextReassemblyDeadline: Double? {
        (Array(centrals.values) + [anonymous]).compactMap { central in
            central.partialSince.map { $0 + Self.idleTimeout(for: central) }
        }.min()
    }

    /// Drops every partial message whose central's idle time-out passed at `now` without a frame.
    mutating func dropStalledMessages(at now: Double) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        for address in centrals.keys.sorted() {
            guard var central = centrals[address] else { continue }
            actions += dropIfStalled(&central, from: address, at: now)
            centrals[address] = central
        }
        actions += dropIfStalled(&anonymous, from: nil, at: now)
        return actions
    }

    private func dropIfStalled(_ central: inout CentralState, from address: BluetoothAddress?, at now: Double) -> [PeripheralAction] {
        let timeout = Self.idleTimeout(for: central)
        guard let since = central.partialSince, now - since >= timeout else { return [] }
        central.partialSince = nil
        guard let partial = central.reassembler.reset() else { return [] }
        let why = central.subscribed ? "" : ", not subscribed"
        return [.report(.dropped(from: address, received: partial.received, total: partial.total,
            reason: "stalled: no frame for \(Int(timeout)) s\(why)"))]
    }

    private mutating func deliver(_ message: Message, from address: BluetoothAddress?) -> [PeripheralAction] {
        messagesReceived += 1
        let digest = SHA256.hash(message.bytes).hex
        let text = message.text
        var report = ReceivedMessageReport(
            from: address, kind: message.kind, length: message.bytes.count, sha256: digest, text: text, savedPath: nil)
        guard let directory = configuration.saveDirectory else {
            return [.report(.message(report))]
        }
        let sender = address?.pathComponent ?? "unknown"
        let number = String(messagesReceived)
        let padded = String(repeating: "0", count: max(0, 4 - number.count)) + number
        let suffix = message.kind == .text ? "txt" : "bin"
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + "message-\(padded)-\(sender).\(suffix)"
        report = ReceivedMessageReport(
            from: address, kind: message.kind, length: message.bytes.count, sha256: digest, text: text, savedPath: path)
        return [.save(bytes: message.bytes, path: path, event: .message(report))]
    }

    private mutating func reportProtocolError(
        _ error: ReassemblyError, dropped: DroppedPartial?, from address: BluetoothAddress?,
        verdict: (show: Bool, previouslySuppressed: Int)
    ) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        if verdict.previouslySuppressed > 0 {
            actions.append(.report(.error("\(verdict.previouslySuppressed) more protocol errors were not shown", from: address)))
        }
        guard verdict.show else { return actions }
        actions.append(.report(.error("protocol error: \(error)", from: address)))
        if let dropped {
            actions.append(
                .report(.dropped(from: address, received: dropped.received, total: dropped.total, reason: "\(error)")))
        }
        return actions
    }
}
