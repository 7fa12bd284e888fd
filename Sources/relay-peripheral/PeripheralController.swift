#if canImport(Glibc)
    import Glibc
#endif
import RelayProtocol
import Shared

/// Connects the session to the world: feeds it inputs, performs its actions (calls on the
/// backend, printed events, saved files) and pumps queued notifications to the backend as
/// fast as the link takes them.
final class PeripheralController {
    let loop: EventLoop
    let console: Console
    var session: PeripheralSession
    /// Set once, right after the backend is created.
    weak var backend: (any PeripheralBackend)?
    /// Called with the new prompt whenever the state shown in it changes.
    var onPromptChange: ((String) -> Void)?

    /// Values handed over per loop turn when the backend cannot pace (PropertiesChanged).
    static let unpacedBurst = 8
    /// Pause between bursts when the backend cannot pace, in seconds.
    static let unpacedInterval = 0.002
    /// After the last value was handed over, time given to bluetoothd to send it before exit.
    static let drainGrace = 0.3
    /// The largest file `send-file` reads.
    static let sendFileLimit = 1 << 28

    /// A value the backend refused with `.wouldBlock`, offered again when writable.
    private var blockedValue: OutgoingValue?
    private var pumpScheduled = false
    private var waitingForWritable = false
    private var drainWaiters: [() -> Void] = []
    private var lastPrompt = ""
    /// The timer that feeds `.tick` when an incomplete message would stall, and its deadline.
    private var stallTimer: EventLoop.Token?
    private var stallDeadline: Double?

    init(configuration: PeripheralSession.Configuration, loop: EventLoop, console: Console) {
        self.session = PeripheralSession(configuration: configuration)
        self.loop = loop
        self.console = console
    }

    // MARK: Inputs and actions

    /// An input from the backend.
    func handle(_ input: PeripheralInput) {
        let actions = session.handle(input)
        if !session.hasSubscribers || !session.isPoweredOn {
            // The session dropped its queue; a value the link refused earlier goes with it.
            blockedValue = nil
            waitingForWritable = false
        }
        perform(actions)
    }

    func perform(_ actions: [PeripheralAction]) {
        for action in actions {
            switch action {
            case .registerApplication(let ticket): backend?.registerApplication(ticket)
            case .unregisterApplication: backend?.unregisterApplication()
            case .registerAdvertisement(let ticket, let name): backend?.registerAdvertisement(ticket, name: name)
            case .unregisterAdvertisement: backend?.unregisterAdvertisement()
            case .report(let event):
                console.report(event)
                if case .advertising = event { StartupTrace.once("advertising printed") }
            case .note(let text): console.print(text)
            case .startSending: schedulePump()
            case .save(let bytes, let path, let event): save(bytes, to: path, then: event)
            }
        }
        updatePrompt()
        armStallTimer()
        if !session.hasPendingValues && blockedValue == nil { finishDrainWaiters() }
    }

    /// Keeps one timer at the session's next reassembly deadline (partial messages that stall).
    private func armStallTimer() {
        let deadline = session.nextReassemblyDeadline
        guard deadline != stallDeadline else { return }
        if let stallTimer { loop.cancel(stallTimer) }
        stallTimer = nil
        stallDeadline = deadline
        guard let deadline else { return }
        stallTimer = loop.schedule(after: max(0, deadline - loop.now)) { [weak self] in
            guard let self else { return }
            self.stallTimer = nil
            self.stallDeadline = nil
            self.handle(.tick(now: self.loop.now))
        }
    }

    private func save(_ bytes: [UInt8], to path: String, then event: PeripheralEvent) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        var failure: String?
        if fd < 0 {
            failure = String(cString: strerror(errno))
        } else {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    break
                }
                offset += written
            }
            close(fd)
        }
        guard let failure else { return console.report(event) }
        console.report(PeripheralEvent.error("cannot save the message to \(path): \(failure) (check --save-dir)", from: nil))
        if case .message(let report) = event {
            console.report(PeripheralEvent.message(ReceivedMessageReport(
                from: report.from, kind: report.kind, length: report.length, sha256: report.sha256, text: report.text,
                savedPath: nil)))
        }
    }

    // MARK: Sending

    private func schedulePump() {
        guard !pumpScheduled, !waitingForWritable else { return }
        pumpScheduled = true
        loop.post { [weak self] in
            self?.pumpScheduled = false
            self?.pump()
        }
    }

    /// The backend's socket can take more.
    func backendWritable() {
        waitingForWritable = false
        pump()
    }

    /// Hands queued values to the backend until it is full (socket) or a burst is done (no socket).
    func pump() {
        guard let backend else { return }
        var budget = backend.pacesItself ? Int.max : Self.unpacedBurst
        while budget > 0 {
            guard let value = blockedValue ?? session.takeNextValue() else { break }
            blockedValue = nil
            switch backend.notify(value.bytes) {
            case .sent:
                budget -= 1
                if value.counter == nil, let last = session.lastNotified {
                    backend.setNotifyReadValue(last.encoded)
                } else if value.counter == nil {
                    backend.setNotifyReadValue([])
                }
                if let completion = value.completion { console.report(completion) }
            case .wouldBlock:
                blockedValue = value
                waitingForWritable = true
                return
            case .failed(let reason):
                let what = value.counter.map { "counter \($0)" } ?? "a message frame"
                console.report(PeripheralEvent.error("\(what) not sent: \(reason)", from: nil))
                perform(session.abandonOutbox(because: reason))
                return finishDrainWaiters()
            }
        }
        if session.hasPendingValues || blockedValue != nil {
            loop.schedule(after: backend.pacesItself ? 0 : Self.unpacedInterval) { [weak self] in self?.pump() }
        } else {
            finishDrainWaiters()
        }
        updatePrompt()
    }

    /// Calls `done` once every queued value has been handed over (or dropped), plus a short grace
    /// so bluetoothd can put the last ones on the air.
    func whenSendsFinished(_ done: @escaping () -> Void) {
        let grace = { [loop] in _ = loop.schedule(after: Self.drainGrace, done) }
        if !session.hasPendingValues && blockedValue == nil {
            grace()
        } else {
            drainWaiters.append(grace)
        }
    }

    private func finishDrainWaiters() {
        guard !drainWaiters.isEmpty else { return }
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter() }
    }

    /// `quit` or end of input, after the sends: unregister and let go of the bus.
    func shutdown(_ done: @escaping () -> Void) {
        perform(session.quit())
        if let backend { backend.shutdown(then: done) } else { done() }
    }

    // MARK: Prompt and status

    var prompt: String {
        var parts: [String] = []
        switch session.adapter {
        case .poweredOn?:
            parts.append(session.isAdvertising ? "advertising" : session.application == .active ? "idle" : "on")
        case .some(let other): parts.append(other.phrase)
        case nil: parts.append("waiting")
        }
        let count = session.centrals.count
        if count > 0 { parts.append("\(count) central\(count == 1 ? "" : "s")") }
        if session.pendingCount > 0 { parts.append("sending") }
        return "relay-peripheral [\(parts.joined(separator: ", "))]> "
    }

    private func updatePrompt() {
        let current = prompt
        guard current != lastPrompt else { return }
        lastPrompt = current
        onPromptChange?(current)
    }

    var status: PeripheralStatus { PeripheralStatus(session: session, adapter: backend?.adapterDescription) }
}
