import RelayApp
import RelayCLI
import RelayREPL

/// relay-peripheral's timers (the reassembly and delivery deadline is `nextDeadline`, kept by the driver).
enum PeripheralTimer: Hashable, Sendable {
    /// The pause between unpaced bursts of notifications.
    case sendPause
}

/// What the shared driver needs from the session: its prompt and quiescence.
extension PeripheralSession: ProgramSession {
    /// After the last value was handed over, time given to bluetoothd to send it before exit.
    static var quiescenceGrace: Double { 0.3 }
    var failedDeliveries: Int { delivery.outgoing.failed }
    /// Nothing waits to be handed to bluetoothd.
    var isQuiescent: Bool { !hasPendingValues }
    var nextDeadline: Double? { nextReassemblyDeadline }

    /// The REPL's prompt: `relay-peripheral [STATE, N centrals, sending]> `.
    var prompt: String {
        var parts: [String] = []
        switch adapter {
        case .poweredOn:
            parts.append(isAdvertising ? "advertising" : registrations.application == .active ? "idle" : "on")
        case .unknown: parts.append("waiting")
        case let other: parts.append(other.phrase)
        }
        let count = centrals.count
        if count > 0 { parts.append("\(count) central\(count == 1 ? "" : "s")") }
        if pendingCount > 0 { parts.append("sending") }
        return "relay-peripheral [\(parts.joined(separator: ", "))]> "
    }
}
