import RelayApp
import RelayEndpoint
import RelayProtocol

extension PeripheralSession {
    /// A UART app wrote `bytes` to RX: the lines they complete are messages (`via` `nus`).
    mutating func uartWritten(_ bytes: [UInt8], from: BluetoothAddress?, mtu: MTU?, time: Double) -> [PeripheralAction]
    {
        guard settings.uart != nil else { return [] }
        var actions: [PeripheralAction] = []
        if let from {
            actions += ensureCentral(from)
            if let mtu { actions += learnMTU(mtu, of: from) }
            uart.centrals.insert(from)
        }
        var assembler = uart.lines[from] ?? UARTLineAssembler()
        let lines = assembler.receive(bytes, at: time)
        uart.lines[from] = assembler
        var pace = uart.pace[from] ?? RateLimiter(limit: UARTPeers.linesPerSecond, per: 1)
        var shown = 0
        while shown < lines.count, case .allow = pace.admit(now: time) { shown += 1 }
        uart.pace[from] = pace
        actions += lines[..<shown].map { deliverUARTLine($0, from: from) }
        // The rest of this write's lines, nothing lost: one message, its lines as they came.
        if shown < lines.count { actions.append(deliverUARTLine(lines[shown...].joined(separator: "\n"), from: from)) }
        return actions
    }

    /// TX notifications went on (with the central when bluetoothd named it).
    mutating func uartNotifyStarted(from: BluetoothAddress?, mtu: MTU?) -> [PeripheralAction] {
        uart.subscribed = true
        guard let from else {
            uart.anonymousSubscriber = true
            return []
        }
        uart.centrals.insert(from)
        return ensureCentral(from) + (mtu.map { learnMTU($0, of: from) } ?? [])
    }

    /// Lines that waited `UARTLineAssembler.idleGap` without an ending, at `now`.
    mutating func uartIdleLines(at now: Double) -> [PeripheralAction] {
        var actions: [PeripheralAction] = []
        for key in uart.lines.keys.sorted(by: { ($0?.description ?? "") < ($1?.description ?? "") }) {
            guard var assembler = uart.lines[key] else { continue }
            let lines = assembler.tick(at: now)
            uart.lines[key] = assembler
            actions += lines.map { deliverUARTLine($0, from: key) }
        }
        return actions
    }

    /// When a UART line ends for want of an ending.
    var uartDeadline: Double? { uart.lines.values.compactMap(\.deadline).min() }

    /// A UART app left: the line it was writing ends.
    mutating func uartCentralLeft(_ address: BluetoothAddress) -> [PeripheralAction] {
        uart.centrals.remove(address)
        uart.pace[address] = nil
        guard var assembler = uart.lines.removeValue(forKey: address) else { return [] }
        return assembler.tick(at: .infinity).map { deliverUARTLine($0, from: address) }
    }

    /// `send TEXT` for UART apps: the text cut at the smallest UART link's notification size, on
    /// character boundaries, with `--nus-eol` appended. Returns whether anything was queued.
    mutating func queueForUART(_ message: Message) -> Bool {
        guard let ending = settings.uart, uart.subscribed, message.kind == .text, message.stored == nil else {
            return false
        }
        let text = String(decoding: message.bytes, as: UTF8.self)
        uart.queue += UARTTextSplitter.values(text, ending: ending, maxBytes: uartMTU.sendValueLength(.notification))
        return true
    }

    /// The next UART value for TX, if one waits.
    mutating func takeUARTValue() -> OutgoingValue? {
        guard !uart.queue.isEmpty else { return nil }
        return OutgoingValue(
            bytes: uart.queue.removeFirst(), counter: nil, completion: nil, carrier: .notification(.uartTX))
    }

    /// The smallest MTU of the links that may hear TX: the UART apps', and every connected
    /// central's when bluetoothd did not say who subscribed (23 for a link whose MTU is not known).
    var uartMTU: MTU {
        let audience = uart.anonymousSubscriber ? Set(centrals.keys).union(uart.centrals) : uart.centrals
        return audience.map { centrals[$0]?.mtu ?? .default }.min() ?? .default
    }

    /// TX notifications went off: nobody is left to hear the text waiting for it.
    mutating func uartNotifyStopped() -> [PeripheralAction] {
        uart.subscribed = false
        uart.anonymousSubscriber = false
        uart.queue.removeAll()
        return []
    }

    private mutating func deliverUARTLine(_ line: String, from: BluetoothAddress?) -> PeripheralAction {
        uart.received += 1
        return .deliver(
            arrivals.next(Message(text: line), id: uart.received, from: PeerName(.central, from), via: .nus, at: now))
    }
}
