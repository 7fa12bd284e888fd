import RelayApp
import RelayCLI
import RelayProtocol
import RelayREPL
import RelayRuntime

/// Connects the session to the world: feeds it commands and the backend's reports, and only
/// performs the actions it returns (calls on the backend, printed events, saved files, timers).
final class PeripheralDriver {
    let loop: EventLoop
    let console: Console
    private(set) var session: PeripheralSession
    /// Set once, right after the backend is created.
    weak var backend: (any PeripheralBackend)?
    /// Called with the new prompt whenever the state shown in it changes.
    var onPromptChange: ((String) -> Void)?
    /// Called when a message failed for a central (a scripted run then ends with status 1).
    var onDeliveryFailure: (() -> Void)?
    private var failuresSeen = 0
    /// The part files of files being received (`--save-dir`).
    private let incomingFiles = IncomingFiles()

    /// After the last value was handed over, time given to bluetoothd to send it before exit.
    static let drainGrace = 0.3

    /// What the driver works through, one at a time: inputs for the session, and the actions of
    /// a command (so that an outcome fed back while they run waits its turn).
    private enum Work {
        case input(PeripheralInput)
        case actions([PeripheralAction])
    }

    private var work: InputQueue<Work>!
    private var drainWaiters: [() -> Void] = []
    private var lastPrompt = ""
    /// The timer that feeds `.tick` when an incomplete message would stall, and its deadline.
    private var stallTimer: EventLoop.Token?
    private var stallDeadline: Double?

    init(configuration: PeripheralSession.Configuration, loop: EventLoop, console: Console) {
        self.session = PeripheralSession(configuration: configuration)
        self.loop = loop
        self.console = console
        work = InputQueue(
            handle: { [unowned self] item in
                switch item {
                case .input(let input): self.perform(self.session.handle(input, at: self.loop.now))
                case .actions(let actions): self.perform(actions)
                }
            },
            afterBatch: { [unowned self] in self.settle() })
    }

    // MARK: Inputs and actions

    /// An input from the backend.
    func handle(_ input: PeripheralInput) {
        work.feed(.input(input))
    }

    /// Runs a command; a refusal is thrown as the command's error.
    func run(_ command: PeripheralCommand) throws(CommandError) -> CommandOutcome {
        let actions: [PeripheralAction]
        switch command {
        case .start:
            StartupTrace.once("start command read")
            actions = session.start()
        case .stop: actions = session.stop()
        case .notify(let value): actions = try session.notify(value: value, at: loop.now)
        case .send(let message): actions = try session.send(message, at: loop.now)
        case .status:
            console.report(PeripheralEvent.status(status))
            return .success
        }
        work.feed(.actions(actions))
        return .success
    }

    private func perform(_ actions: [PeripheralAction]) {
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
            case .notify(let value, let characteristic):
                handle(.notifyOutcome(backend?.notify(value, on: characteristic) ?? .failed(.noBluetoothd)))
            case .setReadValue(let value, let characteristic): backend?.setReadValue(value, of: characteristic)
            case .pauseSending(let seconds):
                loop.schedule(after: seconds) { [weak self] in self?.handle(.sendTimerFired) }
            case .deliver(let arrival):
                let (report, problem) = arrival.perform(files: incomingFiles)
                if let problem { console.report(PeripheralEvent.error(.saveFailed(problem), from: nil)) }
                console.report(PeripheralEvent.transfer(.message(report)))
                if let receipt = arrival.receipt(saved: problem == nil) { handle(.saved(receipt)) }
            case .file(let step):
                if let problem = incomingFiles.perform(step) {
                    console.report(PeripheralEvent.error(.saveFailed(problem), from: nil))
                }
            }
        }
    }

    /// After a batch of inputs: the prompt, the stall timer and the waiters for the queue to drain.
    private func settle() {
        while failuresSeen < session.delivery.failed {
            failuresSeen += 1
            onDeliveryFailure?()
        }
        updatePrompt()
        armStallTimer()
        if !session.hasPendingValues { finishDrainWaiters() }
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

    // MARK: Draining and shutdown

    /// Calls `done` once every queued value has been handed over (or dropped), plus a short grace
    /// so bluetoothd can put the last ones on the air.
    func whenSendsFinished(_ done: @escaping () -> Void) {
        let grace = { [loop] in _ = loop.schedule(after: Self.drainGrace, done) }
        if !session.hasPendingValues {
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
        work.feed(.actions(session.quit()))
        // Files still on their way in will not be finished: their part files go.
        let finish = { [incomingFiles] in
            incomingFiles.discardAll()
            done()
        }
        if let backend { backend.shutdown(then: finish) } else { finish() }
    }

    // MARK: Prompt and status

    var prompt: String {
        var parts: [String] = []
        switch session.adapter {
        case .poweredOn:
            parts.append(session.isAdvertising ? "advertising" : session.application == .active ? "idle" : "on")
        case .unknown: parts.append("waiting")
        case let other: parts.append(other.phrase)
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

    var status: PeripheralStatus { PeripheralStatus(session: session) }
}
