import RelayProtocol
import Shared

extension CentralSession {
    /// Starts writing the next value when the link is ready and nothing is in flight.
    mutating func pump() -> [CentralAction] {
        guard !writeInFlight, !outgoing.isEmpty, case .ready(_, let relay) = link, let path = relay.path else {
            return []
        }
        switch outgoing[0] {
        case .counter(let counter, _):
            writeInFlight = true
            return [.write(counter.encoded, via: path, to: relay.write)]
        case .message(var frames, let token, let sha256, let sentFrames):
            guard let value = frames.next() else { return [] }
            outgoing[0] = .message(frames, token: token, sha256: sha256, sentFrames: sentFrames + 1)
            writeInFlight = true
            return [.write(value, via: path, to: relay.write)]
        }
    }

    mutating func writeFinished(_ error: BlueZError?) -> [CentralAction] {
        guard writeInFlight, !outgoing.isEmpty else { return [] }
        writeInFlight = false
        var actions: [CentralAction] = []
        switch outgoing[0] {
        case .counter(let counter, let token):
            outgoing.removeFirst()
            if let error {
                let message = "counter \(counter) not written: \(Self.writeProblem(error))"
                actions.append(.report(.error(message)))
                if let token { actions.append(.finish(token, .failure(message))) }
            } else {
                actions.append(.report(.written(counter)))
                if let token { actions.append(.finish(token, .success)) }
            }
        case .message(let frames, let token, let sha256, let sentFrames):
            if let error {
                outgoing.removeFirst()
                let message =
                    "message \(frames.id) not sent: frame \(sentFrames) of \(frames.count) failed: \(Self.writeProblem(error))"
                actions.append(.report(.error(message)))
                if let token { actions.append(.finish(token, .failure(message))) }
            } else if sentFrames == frames.count {
                outgoing.removeFirst()
                messagesSent += 1
                actions.append(.report(.sent(
                    kind: frames.message.kind, length: frames.message.bytes.count, sha256: sha256,
                    frames: frames.count, mtu: frames.mtu)))
                if let token { actions.append(.finish(token, .success)) }
            }
        }
        return actions + pump()
    }

    /// The cause and the fix of a failed write.
    static func writeProblem(_ error: BlueZError) -> String {
        switch error.kind {
        case .invalidLength, .invalidValueLength, .invalidArguments:
            return "the value is too large for the link (\(error.name)): the MTU shrank? reconnect and retry"
        case .notConnected: return "not connected: connect again"
        case .inProgress: return "another write is in progress (InProgress): retry"
        case .notPermitted: return "the peripheral does not permit this write (NotPermitted)"
        default: return error.description
        }
    }

    mutating func writeSocketClosed() -> [CentralAction] {
        guard case .ready(let peer, var relay) = link, relay.path == .socket else { return [] }
        relay.path = .writeValue
        link = .ready(peer, relay)
        return []
    }

    mutating func notified(_ value: [UInt8], at time: Double = 0) -> [CentralAction] {
        switch link {
        case .subscribing, .ready: break
        default: return []
        }
        var actions: [CentralAction] = []
        for event in reassembler.receive(value) {
            switch event {
            case .counter(let counter):
                lastReceived = counter
                actions.append(.report(.counter(counter)))
            case .message(let received):
                actions += delivered(received.message)
            case .error(let error, let dropped):
                actions += protocolError(error, dropped: dropped, at: time)
            }
        }
        let progress = reassembler.progress
        if let progress, progress.id != announcedMessage, case .allow = receivingLimiter.admit(now: time) {
            actions.append(.report(.receiving(progress)))
        }
        announcedMessage = progress?.id
        return actions
    }

    /// One protocol error (and the partial message it dropped) as one report, at most 5 a
    /// second: a peripheral notifying garbage at full speed cannot drown the REPL. What was held
    /// back is counted and said once, with the next report let through.
    mutating func protocolError(_ error: ReassemblyError, dropped: DroppedPartial?, at time: Double) -> [CentralAction] {
        guard case .allow(let suppressed) = protocolErrorLimiter.admit(now: time) else { return [] }
        var actions: [CentralAction] = []
        if suppressed > 0 {
            actions.append(.report(.error("\(suppressed) more protocol errors from the peripheral were not shown")))
        }
        actions.append(.report(.error("protocol error from the peripheral: \(error)")))
        if let dropped { actions.append(.report(.dropped(dropped, reason: error.description))) }
        return actions
    }

    /// A complete message: saved when `--save-dir` is set, and reported.
    mutating func delivered(_ message: Message) -> [CentralAction] {
        messagesReceived += 1
        let digest = SHA256.hash(message.bytes).hex
        var actions: [CentralAction] = []
        var file: String? = nil
        if let directory = settings.saveDirectory {
            let number = String(messagesReceived)
            let padded = String(repeating: "0", count: max(0, 4 - number.count)) + number
            let suffix = message.kind == .text ? "txt" : "bin"
            let path = (directory.hasSuffix("/") ? directory : directory + "/")
                + "message-\(padded)-\(digest.prefix(8)).\(suffix)"
            file = path
            actions.append(.save(message.bytes, path: path))
        }
        let text: String? = message.kind == .text ? String(decoding: message.bytes, as: UTF8.self) : nil
        actions.append(.report(.message(
            kind: message.kind, length: message.bytes.count, sha256: digest, text: text, file: file)))
        return actions
    }

    mutating func readFinished(_ role: CharacteristicRole, _ result: Result<[UInt8], BlueZError>) -> [CentralAction] {
        guard let token = readToken, readsPending > 0 else { return [] }
        readsPending -= 1
        var actions: [CentralAction] = []
        switch result {
        case .success(let value):
            actions.append(.report(.read(role, value: value)))
        case .failure(let error):
            let message = "reading the \(role.rawValue) characteristic failed: \(error)"
            readFailure = readFailure.map { $0 + "; " + message } ?? message
        }
        if readsPending == 0 {
            readToken = nil
            actions.append(.finish(token, readFailure.map { .failure($0) } ?? .success))
            readFailure = nil
        }
        return actions
    }
}
