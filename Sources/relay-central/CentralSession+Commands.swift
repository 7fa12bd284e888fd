import RelayApp
import RelayBlueZ
import RelayProtocol

/// The commands: each starts what it asks for and finishes now or when what it waits for
/// happens; a command the state refuses finishes at once with its `CentralProblem`. (Scanning,
/// connecting, pairing and leaving have files of their own.)
extension CentralSession {
    /// A command: what it starts, and its `finish` (now, or when what it waits for happens).
    mutating func handle(_ command: CentralCommand, token: CommandToken) -> [CentralAction] {
        switch command {
        case .scan: return startListing(token: token)
        case .scanStop: return stopScanCommand(token: token)
        case .list: return [.report(.list(scanning.candidates)), .finish(token, nil)]
        case .connect(let target): return connectCommand(target, service: settings.uart ? .nus : .relay, token: token)
        case .connectUART(let target): return connectCommand(target, service: .nus, token: token)
        case .disconnect: return disconnectCommand(token: token)
        case .write(let value): return writeCommand(value, token: token)
        case .send(let message): return sendCommand(message, token: token)
        case .read: return readCommand(token: token)
        case .status: return [.report(.status(status)), .finish(token, nil)]
        case .pair: return pairCommand(token: token)
        case .unpair: return unpairCommand(token: token)
        case .passkey(let passkey): return passkeyCommand(passkey, token: token)
        }
    }

    /// Why a command cannot run now, or nil when the adapter is usable.
    var adapterProblem: CentralProblem? {
        adapter == .poweredOn ? nil : .adapter(adapter)
    }

    private mutating func writeCommand(_ value: UInt32?, token: CommandToken) -> [CentralAction] {
        guard let relay = readyLink else { return [.finish(token, notReady)] }
        guard relay.service == .relay else {
            return [.finish(token, .uartTextOnly(.counter))]
        }
        let counter = value.map(Counter.init) ?? writing.nextCounter
        writing.nextCounter = counter.next
        writing.outbox.append(counter: counter, tag: token)
        return pump()
    }

    private mutating func sendCommand(_ message: Message, token: CommandToken) -> [CentralAction] {
        guard let relay = readyLink else { return [.finish(token, notReady)] }
        if relay.service == .nus { return uartSendCommand(message, mtu: relay.mtu ?? .default, token: token) }
        guard message.length <= Int(UInt32.max) - 300 else {
            return [.finish(token, .messageTooLarge)]
        }
        // As on relay-peripheral: at most 256 messages on their way (each a stream, a file
        // descriptor for a file), protocol 2's and those waiting for the welcome together.
        guard delivery.outgoing.streams.count + delivery.waiting.count < DeliverySettings.maximumMessagesOnTheirWay
        else { return [.finish(token, .queueFull)] }
        let number = writing.nextMessageNumber
        writing.nextMessageNumber += 1
        switch delivery.phase {
        case .established: enqueue(message, number: number, token: token)
        case .greeting: delivery.waiting.append((number, message, token))
        case .idle, .fallback: writing.outbox.append(message, number: number, chunker: &writing.chunker, tag: token)
        }
        return pump()
    }

    private mutating func readCommand(token: CommandToken) -> [CentralAction] {
        guard let relay = readyLink else { return [.finish(token, notReady)] }
        guard relay.service == .relay else { return [.finish(token, .uartTextOnly(.read))] }
        guard reading.token == nil else {
            return [.finish(token, .readInProgress)]
        }
        reading.token = token
        reading.pending = 2
        reading.failures = []
        // Reading the characteristic notifications come from changes its `Value` too (signal path).
        reading.valuesDuringRead = relay.notifyVia == .socket || relay.session != nil ? nil : []
        return [.readValue(.write, relay.write), .readValue(.notify, relay.notify)]
    }

    /// Why a command that needs a ready link cannot run now.
    var notReady: CentralProblem {
        if let problem = adapterProblem { return problem }
        switch link {
        case .idle, .ready: return .notConnected
        case .connecting, .resolving, .subscribing: return .stillConnecting
        case .disconnecting: return .leavingLink
        }
    }
}
