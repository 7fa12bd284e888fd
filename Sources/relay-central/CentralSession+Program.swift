import RelayApp
import RelayCLI
import RelayProtocol
import RelayREPL

/// relay-central's timers (the delivery deadline is `nextDeadline`, kept by the driver).
enum CentralTimer: Hashable, Sendable {
    /// A scan's time-out (`--scan-timeout`).
    case scan
    /// The pause before the next automatic connection attempt.
    case reconnect
    /// The wait for `Connected` to turn false after a disconnection or a vanished characteristic.
    case settle
}

/// What the shared driver needs from the session: its prompt, status and quiescence.
extension CentralSession: ProgramSession {
    /// A write is done when bluetoothd has it: nothing to wait for after the last one.
    static var quiescenceGrace: Double { 0 }
    var failedDeliveries: Int { delivery.outgoing.failed }

    /// The REPL's prompt: `relay-central [STATE]> `.
    var prompt: String { "relay-central [\(promptState)]> " }

    /// One word for the prompt: `off`, `idle`, `scanning`, `connecting`, `ready`, ...
    private var promptState: String {
        if adapter != .poweredOn { return adapter == .unknown ? "waiting" : "off" }
        switch link {
        case .idle: return scanning.state == .idle ? "idle" : "scanning"
        case .connecting: return "connecting"
        case .resolving, .subscribing: return "subscribing"
        case .ready(_, let relay):
            if case .greeting = delivery.phase { return "greeting" }
            return "ready mtu \(relay.mtu?.value ?? MTU.minimum)"
        case .disconnecting: return "disconnecting"
        }
    }

    /// Whether nothing is pending that quitting would cut short (sends, connect, read).
    var isQuiescent: Bool {
        writing.outbox.isEmpty && writing.inFlight == nil && !delivery.isBusy && uart.queue.isEmpty
    }

    /// When the session must hear `.tick` (the handshake, retransmissions, time-outs, a trace line, a UART line's idle gap).
    var nextDeadline: Double? {
        [delivery.nextDeadline, trace?.flushDeadline, uart.lines.deadline].compactMap { $0 }.min()
    }

    /// The `status` snapshot.
    var status: CentralStatus {
        let linkWord: String
        switch link {
        case .idle: linkWord = "disconnected"
        case .connecting: linkWord = "connecting"
        case .resolving: linkWord = "resolving services"
        case .subscribing: linkWord = "subscribing"
        case .ready: linkWord = "ready"
        case .disconnecting: linkWord = "disconnecting"
        }
        return CentralStatus(
            adapter: AdapterReport(adapter: adapterInfo, state: adapter), link: linkWord, peer: peer,
            mtu: readyLink?.mtu,
            path: readyLink?.path, service: readyLink?.service, scanning: scanning.state != .idle,
            candidates: scanning.candidates.count,
            nextCounter: writing.nextCounter,
            lastReceived: receiving.lastReceived, messagesReceived: receiving.messagesReceived,
            messagesSent: writing.messagesSent,
            pendingSends: writing.outbox.count + delivery.outgoing.sender.pendingCount + delivery.waiting.count
                + uart.queue.filter { $0.completes != nil }.count,
            protocolVersion: protocolInUse,
            lane: protocolInUse == 2 ? messageLane : nil,
            delivery: DeliveryStatus(
                sender: delivery.outgoing.sender.counts, duplicateFrames: delivery.receiver?.counts.duplicateFrames ?? 0
            ))
    }

    /// How protocol 2's frames travel on this link now.
    var messageLane: MessageLane { delivery.laneMTU != nil ? .l2cap : .gatt }

    /// The protocol version of the ready link: 2 (established), 1, or nil (not ready, greeting).
    var protocolInUse: Int? {
        guard let relay = readyLink, relay.service == .relay else { return nil }
        switch delivery.phase {
        case .established: return 2
        case .greeting: return nil
        case .idle, .fallback: return 1
        }
    }
}
