import RelayApp
import RelayBlueZ
import RelayProtocol

/// The commands: each starts what it asks for and finishes now or when what it waits for
/// happens; a command the state refuses finishes at once with its `CentralProblem`. (Scanning,
/// connecting, pairing and leaving have files of their own.)
extension CentralSession {
    /// A command: refused (with nothing done), done now, or started and waiting for what it
    /// waits for (`commands`).
    mutating func handle(_ command: CentralCommand, token: CommandToken) -> [CentralAction] {
        let start: Result<CommandStart<CentralAction, CentralWait>, CentralProblem>
        do throws(CentralProblem) {
            start = .success(try run(command))
        } catch {
            start = .failure(error)
        }
        return commands.begin(token, start)
    }

    /// What `command` starts; a refusal is thrown.
    private mutating func run(
        _ command: CentralCommand
    ) throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        switch command {
        case .scan: return try startListing()
        case .scanStop: return stopScanCommand()
        case .list: return .done([.report(.list(scanning.candidates))])
        case .connect(let target): return try connectCommand(target, service: settings.uart ? .nus : .relay)
        case .connectUART(let target): return try connectCommand(target, service: .nus)
        case .disconnect: return try disconnectCommand()
        case .write(let value): return try writeCommand(value)
        case .send(let message): return try sendCommand(message)
        case .read: return try readCommand()
        case .status: return .done([.report(.status(status))])
        case .pair: return try pairCommand()
        case .unpair: return try unpairCommand()
        case .passkey(let passkey): return try passkeyCommand(passkey)
        }
    }

    /// Why a command cannot run now, or nil when the adapter is usable.
    var adapterProblem: CentralProblem? {
        adapter == .poweredOn ? nil : .adapter(adapter)
    }

    private mutating func writeCommand(
        _ value: UInt32?
    ) throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        guard let relay = readyLink else { throw notReady }
        guard relay.service == .relay else { throw .uartTextOnly(.counter) }
        let counter = value.map(Counter.init) ?? writing.nextCounter
        writing.nextCounter = counter.next
        let written = writing.nextWrite()
        writing.outbox.append(counter: counter, tag: written)
        return .sending(pump(), to: .peer(written))
    }

    private mutating func sendCommand(
        _ message: Message
    ) throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        guard let relay = readyLink else { throw notReady }
        if relay.service == .nus { return try uartSendCommand(message, mtu: relay.mtu ?? .default) }
        guard message.length <= Int(UInt32.max) - 300 else { throw .messageTooLarge }
        // As on relay-peripheral: at most 256 messages on their way (each a stream, a file
        // descriptor for a file), protocol 2's and those waiting for the welcome together.
        guard delivery.outgoing.streams.count + delivery.waiting.count < DeliverySettings.maximumMessagesOnTheirWay
        else { throw .queueFull }
        let number = writing.nextMessageNumber
        writing.nextMessageNumber += 1
        switch delivery.phase {
        case .established: delivery.enqueue(message, number: number, at: now)
        case .greeting: delivery.hold(message, number: number)
        case .idle, .fallback:
            writing.outbox.append(message, number: number, chunker: &writing.chunker, tag: .message(number))
        }
        return .sending(pump(), to: .peer(.message(number)))
    }

    private mutating func readCommand() throws(CentralProblem) -> CommandStart<CentralAction, CentralWait> {
        guard let relay = readyLink else { throw notReady }
        guard relay.service == .relay else { throw .uartTextOnly(.read) }
        guard !commands.isWaiting(for: .read) else { throw .readInProgress }
        // Reading the characteristic notifications come from changes its `Value` too (signal path).
        reading.begin(holdingNotifications: relay.notifyVia != .socket && relay.session == nil)
        return .waiting(for: .read, [.readValue(.write, relay.write), .readValue(.notify, relay.notify)])
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
