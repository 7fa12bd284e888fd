import RelayApp
import RelayCLI
import RelayREPL
import RelayRuntime

/// Feeds the session its inputs (commands, and what the backend reports) and only performs the
/// actions it returns: calls on the backend, printed events, saved files, timers and command
/// completions.
final class CentralDriver {
    let loop: EventLoop
    let console: Console
    private(set) var session: CentralSession
    /// Set once, right after the backend is created.
    var backend: (any CentralBackend)?
    private var scanTimer: EventLoop.Token?
    private var reconnectTimer: EventLoop.Token?
    private var settleTimer: EventLoop.Token?
    private var deliveryTimer: EventLoop.Token?
    private var deliveryTimerAt: Double?
    private var failuresSeen = 0
    /// The part files of files being received (`--save-dir`).
    private let incomingFiles = IncomingFiles()
    private var commands: [CommandToken: CommandContext] = [:]
    private var nextToken: CommandToken = 1
    private var inputs: InputQueue<CentralInput>!
    private var idleWaiters: [() -> Void] = []
    /// Called after every change of the session (the prompt shows its state).
    var onChange: (() -> Void)?
    /// Called when a message failed after its command had completed (a scripted run then ends with status 1).
    var onDeliveryFailure: (() -> Void)?

    init(settings: CentralSettings, loop: EventLoop, console: Console) {
        self.loop = loop
        self.console = console
        self.session = CentralSession(settings: settings)
        inputs = InputQueue(
            handle: { [unowned self] input in
                for action in self.session.handle(input, at: self.loop.now) { self.perform(action) }
            },
            afterBatch: { [unowned self] in self.settle() })
    }

    /// Starts following bluetoothd.
    func start() {
        backend?.start()
    }

    /// Feeds an input; inputs produced while handling one wait their turn.
    func feed(_ input: CentralInput) {
        inputs.feed(input)
    }

    // MARK: Commands

    /// Runs one of the program's commands: it completes when the session finishes it.
    func run(_ command: CentralCommand, _ context: CommandContext) -> CommandOutcome {
        let token = nextToken
        nextToken += 1
        commands[token] = context
        context.onCancel { [weak self] in self?.commands[token] = nil }
        feed(.command(command, token: token))
        return .pending
    }

    /// Calls `done` once nothing is left to send.
    func whenIdle(_ done: @escaping () -> Void) {
        if session.isQuiescent { return done() }
        idleWaiters.append(done)
    }

    /// Disconnects (if connected) and stops discovery, then calls `done`.
    func shutdown(_ done: @escaping () -> Void) {
        let peer = session.peer
        // The session stops scanning and reconnecting: the disconnection below is not a loss.
        feed(.quitting)
        // Files still on their way in will not be finished: their part files go.
        let finish = { [incomingFiles] in
            incomingFiles.discardAll()
            done()
        }
        guard let backend else { return finish() }
        backend.shutdown(disconnecting: peer?.id, then: finish)
    }

    private func settle() {
        armDeliveryTimer()
        while failuresSeen < session.delivery.failed {
            failuresSeen += 1
            onDeliveryFailure?()
        }
        if session.isQuiescent, !idleWaiters.isEmpty {
            let waiters = idleWaiters
            idleWaiters.removeAll()
            for waiter in waiters { waiter() }
        }
        onChange?()
    }

    // MARK: Actions

    private func perform(_ action: CentralAction) {
        switch action {
        case .report(let event): console.report(event)
        case .startDiscovery(let services): backend?.startDiscovery(services: services)
        case .stopDiscovery: backend?.stopDiscovery()
        case .startScanTimer(let seconds): arm(&scanTimer, after: seconds, .scanTimerFired)
        case .cancelScanTimer: cancel(&scanTimer)
        case .connect(let id, let timeout): backend?.connect(id, timeout: timeout)
        case .disconnect(let id): backend?.disconnect(id)
        case .findCharacteristics(let id): backend?.findCharacteristics(of: id)
        case .startNotify(let id): backend?.startNotify(id)
        case .acquireWrite(let id): backend?.acquireWrite(id)
        case .acquireNotify(let id): backend?.acquireNotify(id)
        case .readMTU(let id): backend?.readMTU(id)
        case .write(let value, let via, let id): backend?.write(value, via: via, to: id)
        case .releaseSockets: backend?.releaseSockets()
        case .readValue(let role, let id): backend?.readValue(role, of: id)
        case .startReconnectTimer(let seconds): arm(&reconnectTimer, after: seconds, .reconnectTimerFired)
        case .cancelReconnectTimer: cancel(&reconnectTimer)
        case .startSettleTimer(let seconds): arm(&settleTimer, after: seconds, .settleTimerFired)
        case .cancelSettleTimer: cancel(&settleTimer)
        case .deliver(let arrival):
            let (report, problem) = arrival.perform(files: incomingFiles)
            if let problem { console.report(CentralEvent.error(problem)) }
            console.report(CentralEvent.transfer(.message(report)))
            if let receipt = arrival.receipt(saved: problem == nil) { feed(.saved(receipt)) }
        case .file(let step):
            if let problem = incomingFiles.perform(step) { console.report(CentralEvent.error(problem)) }
        case .pair(let id): backend?.pair(id)
        case .answerPasskey(let passkey): backend?.answerPasskey(passkey)
        case .unpair(let id): backend?.unpair(id)
        case .finish(let token, let outcome):
            guard let context = commands.removeValue(forKey: token) else { return }
            switch outcome {
            case .failure(let message): context.fail(message)
            default: context.succeed()
            }
        }
    }

    /// Keeps one timer at the session's delivery deadline (handshake, retransmissions, time-outs).
    private func armDeliveryTimer() {
        let deadline = session.deliveryDeadline
        guard deadline != deliveryTimerAt else { return }
        if let deliveryTimer { loop.cancel(deliveryTimer) }
        deliveryTimer = nil
        deliveryTimerAt = deadline
        guard let deadline else { return }
        deliveryTimer = loop.schedule(after: max(0, deadline - loop.now)) { [weak self] in
            guard let self else { return }
            self.deliveryTimer = nil
            self.deliveryTimerAt = nil
            self.feed(.deliveryTimerFired)
        }
    }

    /// (Re)arms `timer` to feed `input` after `seconds`.
    private func arm(_ timer: inout EventLoop.Token?, after seconds: Double, _ input: CentralInput) {
        if let timer { loop.cancel(timer) }
        timer = loop.schedule(after: seconds) { [weak self] in
            self?.clearFiredTimer(for: input)
            self?.feed(input)
        }
    }

    private func clearFiredTimer(for input: CentralInput) {
        switch input {
        case .scanTimerFired: scanTimer = nil
        case .reconnectTimerFired: reconnectTimer = nil
        case .settleTimerFired: settleTimer = nil
        default: break
        }
    }

    private func cancel(_ timer: inout EventLoop.Token?) {
        if let timer { loop.cancel(timer) }
        timer = nil
    }
}
