import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol

/// The UART side of a link: which characteristics carry the text, lines from TX, text to RX.
extension CentralSession {
    /// The characteristics of a UART device: in the Nordic UART Service, the one that can be
    /// written is RX and the one that notifies or indicates is TX, whatever their UUIDs (the
    /// micro:bit swaps 6E400002 and 6E400003). Subscribes to TX and picks how RX is written.
    mutating func uartCharacteristicsFound(_ peer: Peer, _ found: [RemoteCharacteristic]) -> [CentralAction] {
        let inService = found.filter { $0.serviceUUID == UARTProfile.service }
        guard !inService.isEmpty else {
            return notRelay(peer, "it has no Nordic UART Service \(UARTProfile.service)")
        }
        let writable: CharacteristicFlags = [.write, .writeWithoutResponse]
        let subscribable: CharacteristicFlags = [.notify, .indicate]
        // A characteristic that does both is RX only when no other one can be written.
        let rx =
            inService.first { !$0.flags.isDisjoint(with: writable) && $0.flags.isDisjoint(with: subscribable) }
            ?? inService.first { !$0.flags.isDisjoint(with: writable) }
        guard let rx else { return notRelay(peer, "its UART service has no characteristic that can be written") }
        guard let tx = inService.first(where: { $0.id != rx.id && !$0.flags.isDisjoint(with: subscribable) }) else {
            return notRelay(peer, "its UART service has no characteristic that notifies or indicates")
        }
        var relay = RelayLink(write: rx.id, notify: tx.id)
        relay.service = .nus
        delivery.newLink()
        uart = CentralUART(device: peer.address)
        // AcquireNotify takes notifications only: an indicating TX (the micro:bit) uses StartNotify.
        let subscribe: CentralAction =
            settings.notifyPath == .socket && tx.flags.contains(.notify)
            ? .acquireNotify(tx.id) : .startNotify(tx.id)
        link = .subscribing(peer, relay)
        if rx.flags.contains(.writeWithoutResponse), settings.writePath == .socket {
            return [subscribe, .acquireWrite(rx.id)]
        }
        relay.path = rx.flags.contains(.writeWithoutResponse) ? .writeValue : .writeRequest
        link = .subscribing(peer, relay)
        return [subscribe, .readMTU(rx.id)]
    }

    /// A value notified or indicated on TX: the lines it completes are messages (`via` `nus`).
    mutating func uartNotified(_ value: [UInt8]) -> [CentralAction] {
        deliver(uart.lines.receive(value, at: now))
    }

    /// A line that waited `UARTLineAssembler.idleGap` without an ending, at `now`.
    mutating func uartIdleLines() -> [CentralAction] {
        deliver(uart.lines.tick(at: now))
    }

    /// `send TEXT` to a UART device: the text with `--nus-eol`, cut on character boundaries into
    /// values that fit one write (MTU-3, at most 495 bytes).
    mutating func uartSendCommand(
        _ message: Message, mtu: MTU
    ) throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        guard message.kind == .text, message.stored == nil, message.name.isEmpty else {
            throw .uartTextOnly(.file(command: message.stored != nil || !message.name.isEmpty ? "send-file" : "send"))
        }
        let text = String(decoding: message.bytes, as: UTF8.self)
        let values = UARTTextSplitter.values(text, ending: settings.uartEnding, maxBytes: mtu.sendValueLength(.write))
        guard !values.isEmpty else { throw .nothingToSend }
        let number = writing.nextMessageNumber
        writing.nextMessageNumber += 1
        let sent = CentralUART.SentText(
            number: number, length: values.reduce(0) { $0 + $1.count }, sha256: SHA256.hash(values.flatMap { $0 }).hex,
            values: values.count, mtu: mtu)
        uart.queue(values, completing: sent)
        return .sending(pump(), to: .peer(.message(number)))
    }

    /// The next value for RX, if one waits.
    mutating func takeUARTValue() -> CentralUART.Value? {
        uart.next()
    }

    /// A value for RX was written (or failed): a `send` completes with its last value; a failed
    /// value takes the rest of its text with it.
    mutating func uartWritten(_ value: CentralUART.Value, error: TransportError?) -> [CentralAction] {
        if let error {
            guard let failed = uart.failed(value) else { return [] }
            let problem = CentralProblem.messageNotSent(
                number: failed.number, reason: CentralProblem.writeReason(error))
            return [.report(.error(problem))] + commands.finish(.message(failed.number), problem)
        }
        guard let sent = value.completes else { return [] }
        writing.messagesSent += 1
        let to = PeerName(.peripheral, peer?.address)
        var actions: [CentralAction] = [
            .report(.transfer(.sentText(id: sent.number, length: sent.length, values: sent.values, mtu: sent.mtu))),
            .report(
                .transfer(
                    .unconfirmed(SentMessageSummary(id: sent.number, length: sent.length, sha256: sent.sha256), to: to))
            ),
        ]
        actions += commands.finish(.message(sent.number), nil)
        return actions
    }

    /// The link ended: the line held is complete, the text not yet written fails with `reason`.
    mutating func uartLinkEnded(reason: String) -> [CentralAction] {
        var actions = deliver(uart.lines.tick(at: .infinity))
        for sent in uart.linkEnded() {
            let problem = CentralProblem.messageNotSent(number: sent.number, reason: reason)
            actions.append(.report(.error(problem)))
            actions += commands.finish(.message(sent.number), problem)
        }
        return actions
    }

    /// Each line as a message from the UART device.
    private mutating func deliver(_ lines: [String]) -> [CentralAction] {
        let from = PeerName(.peripheral, uart.device)
        return lines.map { line in
            .deliver(
                receiving.arrivals.next(Message(text: line), id: uart.numberLine(), from: from, via: .nus, at: now))
        }
    }
}
