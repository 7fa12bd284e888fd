import RelayApp
import RelayEndpoint
import RelayProtocol

/// Phone UART apps on the Nordic UART Service: who they are, the lines they are writing, and
/// the text waiting to be notified on TX.
struct UARTPeers: Equatable, Sendable {
    /// The line each central is writing (nil: a write without a device, never from bluetoothd).
    private(set) var lines: [BluetoothAddress?: UARTLineAssembler] = [:]
    /// Centrals that wrote RX or subscribed to TX through `AcquireNotify` (by address).
    private(set) var centrals: Set<BluetoothAddress> = []
    /// bluetoothd has TX notifications on (for one UART app or more).
    private(set) var subscribed = false
    /// TX notifications went on through `StartNotify`, which names nobody: any connected
    /// central may be listening.
    private(set) var anonymousSubscriber = false
    /// Values waiting for TX, in order.
    private(set) var queue: [[UInt8]] = []
    /// Lines received, from every UART app (numbers the `message` events).
    private(set) var received = 0
    /// Each UART app's lines shown one a message: `linesPerSecond`, then the rest of each write
    /// joined into one message (a burst of 20 writes of 255 one-character lines was 5 100 lines
    /// on the presenter's screen in a tenth of a second).
    private var pace: [BluetoothAddress?: RateLimiter] = [:]
    /// Lines a UART app's writes become one message each, per second; more join into one.
    static let linesPerSecond = 20

    /// `central` wrote RX or subscribed to TX by name.
    mutating func met(_ central: BluetoothAddress) {
        centrals.insert(central)
    }

    /// `from` wrote `bytes` at `time`: the lines they complete, each to be shown on its own up
    /// to `linesPerSecond`, the rest of them joined into one (nothing lost).
    mutating func wrote(_ bytes: [UInt8], from: BluetoothAddress?, at time: Double) -> [String] {
        var assembler = lines[from] ?? UARTLineAssembler()
        let complete = assembler.receive(bytes, at: time)
        lines[from] = assembler
        var rate = pace[from] ?? RateLimiter(limit: Self.linesPerSecond, per: 1)
        var shown = 0
        while shown < complete.count, case .allow = rate.admit(now: time) { shown += 1 }
        pace[from] = rate
        guard shown < complete.count else { return complete }
        return Array(complete[..<shown]) + [complete[shown...].joined(separator: "\n")]
    }

    /// The lines that waited `UARTLineAssembler.idleGap` without an ending at `now`, by writer
    /// (in a stable order).
    mutating func idleLines(at now: Double) -> [(from: BluetoothAddress?, line: String)] {
        var idle: [(BluetoothAddress?, String)] = []
        for key in lines.keys.sorted(by: { ($0?.description ?? "") < ($1?.description ?? "") }) {
            guard var assembler = lines[key] else { continue }
            idle += assembler.tick(at: now).map { (key, $0) }
            lines[key] = assembler
        }
        return idle
    }

    /// `central` left: the line it was writing ends.
    mutating func left(_ central: BluetoothAddress) -> [String] {
        centrals.remove(central)
        pace[central] = nil
        guard var assembler = lines.removeValue(forKey: central) else { return [] }
        return assembler.tick(at: .infinity)
    }

    /// TX notifications went on (`by` nil: through `StartNotify`, which names nobody).
    mutating func subscribe(by central: BluetoothAddress?) {
        subscribed = true
        if let central { centrals.insert(central) } else { anonymousSubscriber = true }
    }

    /// TX notifications went off: nobody is left to hear the text waiting for it.
    mutating func unsubscribe() {
        subscribed = false
        anonymousSubscriber = false
        queue.removeAll()
    }

    /// Queues `values` for TX.
    mutating func queue(_ values: [[UInt8]]) {
        queue += values
    }

    /// The next value for TX, if one waits.
    mutating func next() -> [UInt8]? {
        queue.isEmpty ? nil : queue.removeFirst()
    }

    /// The text waiting for TX goes (its apps left, or bluetoothd went).
    mutating func dropQueue() {
        queue.removeAll()
    }

    /// The number of the next line received.
    mutating func numberLine() -> Int {
        received += 1
        return received
    }
}
