import RelayApp
import RelayEndpoint
import RelayProtocol

extension PeripheralSession {
    /// A UART app wrote `bytes` to RX: the lines they complete are messages (`via` `nus`).
    mutating func uartWritten(_ bytes: [UInt8], from: BluetoothAddress?, mtu: MTU?) -> [PeripheralAction] {
        guard settings.uart != nil else { return [] }
        var actions: [PeripheralAction] = []
        if let from {
            actions += ensureCentral(from)
            if let mtu { actions += learnMTU(mtu, of: from) }
            uart.met(from)
        }
        // Past the pace, the rest of this write's lines come as one message, nothing lost.
        return actions + uart.wrote(bytes, from: from, at: now).map { deliverUARTLine($0, from: from) }
    }

    /// TX notifications went on (with the central when bluetoothd named it).
    mutating func uartNotifyStarted(from: BluetoothAddress?, mtu: MTU?) -> [PeripheralAction] {
        uart.subscribe(by: from)
        guard let from else { return [] }
        return ensureCentral(from) + (mtu.map { learnMTU($0, of: from) } ?? [])
    }

    /// Lines that waited `UARTLineAssembler.idleGap` without an ending, at `now`.
    mutating func uartIdleLines(at now: Double) -> [PeripheralAction] {
        uart.idleLines(at: now).map { deliverUARTLine($0.line, from: $0.from) }
    }

    /// When a UART line ends for want of an ending.
    var uartDeadline: Double? { uart.lines.values.compactMap(\.deadline).min() }

    /// A UART app left: the line it was writing ends.
    mutating func uartCentralLeft(_ address: BluetoothAddress) -> [PeripheralAction] {
        uart.left(address).map { deliverUARTLine($0, from: address) }
    }

    /// `send TEXT` for UART apps: the text cut at the smallest UART link's notification size, on
    /// character boundaries, with `--nus-eol` appended. Returns whether anything was queued.
    mutating func queueForUART(_ message: Message) -> Bool {
        guard let ending = settings.uart, uart.subscribed, message.kind == .text, message.stored == nil else {
            return false
        }
        let text = String(decoding: message.bytes, as: UTF8.self)
        uart.queue(UARTTextSplitter.values(text, ending: ending, maxBytes: uartMTU.sendValueLength(.notification)))
        return true
    }

    /// The next UART value for TX, if one waits.
    mutating func takeUARTValue() -> OutgoingValue? {
        guard let bytes = uart.next() else { return nil }
        return OutgoingValue(bytes: bytes, counter: nil, completion: nil, route: .notification(.uartTX))
    }

    /// The smallest MTU of the links that may hear TX: the UART apps', and every connected
    /// central's when bluetoothd did not say who subscribed (23 for a link whose MTU is not known).
    var uartMTU: MTU {
        let audience = uart.anonymousSubscriber ? Set(centrals.keys).union(uart.centrals) : uart.centrals
        return audience.map { centrals[$0]?.mtu ?? .default }.min() ?? .default
    }

    /// TX notifications went off: nobody is left to hear the text waiting for it.
    mutating func uartNotifyStopped() -> [PeripheralAction] {
        uart.unsubscribe()
        return []
    }

    private mutating func deliverUARTLine(_ line: String, from: BluetoothAddress?) -> PeripheralAction {
        .deliver(
            arrivals.next(
                Message(text: line), id: uart.numberLine(), from: PeerName(.central, from), via: .nus, at: now))
    }
}
