import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// `--check`: every check a program's role needs, in order, one finding each, by asking the bus
/// and bluetoothd (and reading rfkill and the package database, read-only). What it registers
/// to try (an advertisement, a GATT application, an agent) is removed again before it ends, and
/// on SIGINT or SIGTERM; if the process dies, bluetoothd drops them with its bus connection.
///
/// The checks run one after the other; one that leaves nothing for the later ones to ask (no
/// bus, no bluetoothd, no adapter, an adapter off or blocked) ends the run.
public final class SetupCheck {
    /// Which program's part is checked.
    public enum Role: Sendable, Equatable {
        /// relay-peripheral; `secure` adds the pairing agent; it advertises every `interval`.
        case peripheral(secure: Bool, interval: AdvertisingInterval = .relayDefault)
        /// relay-central.
        case central

        /// The program's name, for the summary.
        public var program: String {
            switch self {
            case .peripheral: "relay-peripheral"
            case .central: "relay-central"
            }
        }
    }

    /// How long one check may wait for bluetoothd (seconds).
    public static let stepTimeout = 15.0

    public let role: Role
    /// Every finding so far, in order.
    public private(set) var findings: [CheckFinding] = []
    private let choice: AdapterChoice?
    private let bus: BlueZBus
    let loop: EventLoop
    let facts: SystemFacts
    private let report: (CheckFinding) -> Void
    /// Listens for L2CAP channels once and stops: the PSM the kernel gave, or why it could not.
    let laneProbe: (EventLoop) -> Result<LanePSM, LaneSocketError>
    var client: BlueZClient?
    var adapter: AdapterSnapshot?
    var advertisement: LEAdvertisement?
    var application: GattApplication?
    var agent: PairingAgent?
    var discovering = false
    private var steps: [Step] = []
    private var current = 0
    private var timeout: EventLoop.Token?
    private var completion: ((CheckSummary) -> Void)?
    /// Interrupted: answers still on their way report nothing (what they registered is removed).
    private var stopped = false
    /// Calls to bluetoothd not answered yet, and what waits for them (an interruption's clean-up).
    private var callsInFlight = 0
    private var whenSettled: [() -> Void] = []

    /// One check: reports its findings through `finish`, true to go on with the next; `name` is
    /// the check a time-out is reported as.
    struct Step {
        let name: CheckName
        let run: (_ check: SetupCheck, _ finish: @escaping (_ goOn: Bool) -> Void) -> Void
    }

    public init(
        role: Role, adapter: AdapterChoice?, bus: BlueZBus, loop: EventLoop, facts: SystemFacts = SystemFacts(),
        laneProbe: @escaping (EventLoop) -> Result<LanePSM, LaneSocketError> = SetupCheck.listenOnce,
        report: @escaping (CheckFinding) -> Void
    ) {
        self.role = role
        self.laneProbe = laneProbe
        self.choice = adapter
        self.bus = bus
        self.loop = loop
        self.facts = facts
        self.report = report
    }

    /// Runs every check, then calls `completion` with the summary (after removing anything
    /// registered).
    public func run(completion: @escaping (CheckSummary) -> Void) {
        self.completion = completion
        steps = [
            Step(name: .bus) { $0.checkBus($1) }, Step(name: .bluetoothd) { $0.checkBluetoothd($1) },
            Step(name: .bluez) { $0.checkBlueZ($1) }, Step(name: .adapter) { $0.checkAdapter($1) },
            Step(name: .powered) { $0.checkRadio($1) },
        ]
        switch role {
        case .peripheral(let secure, let interval):
            steps += [
                Step(name: .advertising) { $0.checkAdvertising($1) },
                Step(name: .room) { $0.checkRoom(interval, $1) },
                Step(name: .gattApplication) { $0.checkGattApplication($1) },
            ]
            if secure { steps.append(Step(name: .agent) { $0.checkAgent($1) }) }
        case .central:
            steps.append(Step(name: .discovery) { $0.checkDiscovery($1) })
        }
        steps.append(Step(name: .features) { $0.checkFeatures($1) })
        steps.append(Step(name: .lane) { $0.checkLane($1) })
        current = 0
        next(goOn: true)
    }

    /// Removes whatever is registered now (an interrupted check), then calls `completion`. A
    /// registration bluetoothd is still answering is waited for (at most `settleTimeout`) and
    /// then removed: a client that leaves before bluetoothd's answer can leave the registration
    /// behind in bluetoothd (5.66 sets its watch on the client after that client is gone).
    public func stop(completion: @escaping () -> Void) {
        stopped = true
        timeout.map(loop.cancel)
        timeout = nil
        steps = []
        self.completion = nil
        afterCalls { [weak self] in
            guard let self else { return completion() }
            self.cleanUp(completion)
        }
    }

    /// How long an interrupted check waits for bluetoothd's answers to its calls (seconds).
    public static let settleTimeout = 5.0

    /// A call to bluetoothd goes out (a registration, discovery).
    func calling() { callsInFlight += 1 }

    /// A call to bluetoothd was answered (its result already recorded); false when the check was
    /// interrupted meanwhile: the caller stops there (what it registered is removed).
    func answered() -> Bool {
        callsInFlight -= 1
        if callsInFlight == 0 { settle() }
        return !stopped
    }

    private func afterCalls(_ work: @escaping () -> Void) {
        guard callsInFlight > 0 else { return work() }
        whenSettled.append(work)
        loop.schedule(after: Self.settleTimeout) { [weak self] in self?.settle() }
    }

    private func settle() {
        let work = whenSettled
        whenSettled = []
        work.forEach { $0() }
    }

    func note(_ finding: CheckFinding) {
        guard !stopped else { return }
        findings.append(finding)
        report(finding)
    }

    private func next(goOn: Bool) {
        timeout.map(loop.cancel)
        timeout = nil
        guard goOn, current < steps.count else { return end() }
        let step = steps[current]
        let index = current
        current += 1
        var finished = false
        let finish: (Bool) -> Void = { [weak self] goOn in
            guard let self, !finished, self.current == index + 1 else { return }
            finished = true
            self.next(goOn: goOn)
        }
        timeout = loop.schedule(after: Self.stepTimeout) { [weak self] in
            guard let self, !finished else { return }
            self.timeout = nil
            self.note(
                .failed(
                    step.name,
                    "bluetoothd did not answer within \(Int(Self.stepTimeout)) s",
                    fix: "see why in bluetoothd's log: journalctl -u bluetooth"))
            finish(false)
        }
        step.run(self, finish)
    }

    /// The end of the steps (a step that timed out included): answers still in flight are
    /// waited for (at most `settleTimeout`) before what was registered is removed, as in `stop`.
    private func end() {
        steps = []
        afterCalls { [weak self] in
            guard let self else { return }
            self.cleanUp { [weak self] in
                guard let self, let completion = self.completion else { return }
                self.completion = nil
                completion(CheckSummary(program: self.role.program, findings: self.findings))
            }
        }
    }

    /// Withdraws the test advertisement and application, the agent and discovery, in turn.
    private func cleanUp(_ done: @escaping () -> Void) {
        var work: [(@escaping () -> Void) -> Void] = []
        if let advertisement {
            work.append { next in advertisement.withdraw { _ in next() } }
        }
        if let application {
            work.append { next in
                guard let registration = application.registration else {
                    application.unexport()
                    return next()
                }
                registration.unregister { _ in
                    application.unexport()
                    next()
                }
            }
        }
        if let agent {
            work.append { next in agent.unregister { _ in next() } }
        }
        if discovering, let client, let adapter {
            work.append { next in client.stopDiscovery(adapter: adapter.id) { _ in next() } }
        }
        advertisement = nil
        application = nil
        agent = nil
        discovering = false
        func run(_ index: Int) {
            guard index < work.count else { return done() }
            work[index]({ run(index + 1) })
        }
        run(0)
    }

    // MARK: The system

    func checkBus(_ finish: @escaping (Bool) -> Void) {
        do {
            self.client = try BlueZClient.connect(to: self.bus, loop: self.loop)
            self.note(.ok(.bus, "the system bus answers"))
            finish(true)
        } catch {
            self.note(.failed(.bus, "cannot connect to the system bus (\(error))", fix: AdapterProblem(error).fix))
            finish(false)
        }
    }

    func checkBluetoothd(_ finish: @escaping (Bool) -> Void) {
        guard let client = self.client else { return finish(false) }
        client.onEvent = { [weak self] event in
            guard let self else { return }
            switch event {
            case .objectsLoaded:
                client.onEvent = nil
                self.note(.ok(.bluetoothd, "bluetoothd answers (\(client.owner ?? "org.bluez"))"))
                finish(true)
            case .serviceVanished where !client.isLoaded:
                client.onEvent = nil
                self.note(
                    .failed(
                        .bluetoothd, "bluetoothd is not running (nobody owns org.bluez on the system bus)",
                        fix: AdapterProblem.bluetoothdNotRunning.fix))
                finish(false)
            case .problem(let error) where !client.isLoaded:
                client.onEvent = nil
                if error.kind == .accessDenied {
                    self.note(
                        .failed(
                            .bluetoothd, "the system bus policy does not let this user talk to bluetoothd",
                            fix: AdapterProblem.accessDenied.fix))
                } else {
                    self.note(
                        .failed(
                            .bluetoothd, "bluetoothd did not give its objects: \(error)",
                            fix: "see why in bluetoothd's log: journalctl -u bluetooth"))
                }
                finish(false)
            default:
                break
            }
        }
        client.start()
    }

    func checkBlueZ(_ finish: @escaping (Bool) -> Void) {
        guard let version = self.facts.installedBlueZ() else {
            self.note(
                .warning(
                    .bluez, "the installed BlueZ version is not known (no bluez package in dpkg's database)",
                    fix: "relay is tested with BlueZ 5.66 and 5.82: install Debian's bluez (apt install bluez)"))
            return finish(true)
        }
        if version < SystemFacts.oldestBlueZ {
            self.note(
                .failed(
                    .bluez, "BlueZ \(version) is older than \(SystemFacts.oldestBlueZ.text), which relay needs",
                    fix: "install BlueZ 5.66 or later (Debian 12 or later: apt install bluez)"))
            return finish(false)
        }
        self.note(.ok(.bluez, "BlueZ \(version) (the bluez package)"))
        finish(true)
    }

    func checkAdapter(_ finish: @escaping (Bool) -> Void) {
        guard let client = self.client else { return finish(false) }
        let suits: (AdapterSnapshot) -> Bool = { $0.hasGattManager && $0.advertising != nil }
        switch AdapterSelection.choose(self.choice, from: client.tree.adapters, preferring: suits) {
        case .success(let adapter):
            self.adapter = adapter
            self.note(
                .ok(
                    .adapter,
                    adapter.name + " " + adapter.address.description + (adapter.alias.map { " '\($0)'" } ?? "")))
            finish(true)
        case .failure(let problem):
            self.note(.failed(.adapter, problem.cause, fix: problem.fix))
            finish(false)
        }
    }

    /// rfkill, power and LE together: each is worth knowing when another fails.
    func checkRadio(_ finish: @escaping (Bool) -> Void) {
        guard let adapter = self.adapter else { return finish(false) }
        var goOn = true
        let rfkill = self.facts.rfkill(of: adapter.name)
        switch rfkill {
        case .some(let state) where state.hard:
            self.note(
                .failed(
                    .rfkill, "\(adapter.name) is blocked by a hardware switch",
                    fix: "turn the radio on with its switch or key (airplane mode off)"))
            goOn = false
        case .some(let state) where state.soft:
            self.note(.failed(.rfkill, "\(adapter.name) is blocked by rfkill", fix: "rfkill unblock bluetooth"))
            goOn = false
        case .some:
            self.note(.ok(.rfkill, "\(adapter.name) is not blocked"))
        case .none:
            self.note(.ok(.rfkill, "\(adapter.name) has no rfkill switch"))
        }
        if adapter.powered {
            self.note(.ok(.powered, "\(adapter.name) is on"))
        } else {
            let unblock = goOn ? "" : "rfkill unblock bluetooth, then "
            self.note(
                .failed(
                    .powered, "\(adapter.name) is off" + (adapter.powerState.map { " (\($0))" } ?? ""),
                    fix: unblock + "bluetoothctl power on"))
            goOn = false
        }
        switch self.role {
        case .peripheral:
            let peripheralRole = adapter.roles.isEmpty || adapter.roles.contains { $0.hasSuffix("peripheral") }
            if adapter.hasGattManager, adapter.advertising != nil, peripheralRole {
                self.note(.ok(.lowEnergy, "\(adapter.name) can be an LE peripheral (GATT server, advertising)"))
            } else {
                let problem = AdapterProblem.noLowEnergy(adapter: adapter.name)
                self.note(.failed(.lowEnergy, problem.cause, fix: problem.fix))
                goOn = false
            }
        case .central:
            if adapter.roles.isEmpty || adapter.roles.contains(where: { $0.hasPrefix("central") }) {
                self.note(.ok(.lowEnergy, "\(adapter.name) can be an LE central"))
            } else {
                self.note(
                    .failed(
                        .lowEnergy,
                        "\(adapter.name) cannot be an LE central (roles: \(adapter.roles.joined(separator: ", ")))",
                        fix: "use an adapter with Bluetooth LE (4.0 or later): --adapter, or a USB dongle"))
                goOn = false
            }
        }
        finish(goOn)
    }
}

extension SetupCheck {
    /// `PROGRAM --check`: runs the checks on the system bus, prints a line (or JSON object) per
    /// check and the summary, and returns the exit status: 0 when the program can play its part
    /// here, 1 when a check failed, 128 + the signal when interrupted (after removing what it had
    /// registered).
    public static func runProgram(role: Role, options: CommonOptions, bus: BlueZBus = .system) -> Int32 {
        let loop = EventLoop()
        let console = Console(format: options.json ? .json : .human)
        let check = SetupCheck(role: role, adapter: options.adapter, bus: bus, loop: loop) { console.report($0) }
        var status: Int32?
        let signals = SignalWatcher(loop: loop, signals: [SIGINT, SIGTERM, SIGHUP]) { signal in
            guard status == nil else { return }
            check.stop { status = 128 + signal }
        }
        check.run { summary in
            console.report(summary)
            status = summary.ready ? 0 : 1
        }
        loop.run(until: { status != nil })
        signals?.stop()
        return status ?? 1
    }
}
