import RelayApp
import RelayBlueZ

/// Identifies one registration request, so a late reply to an older request (for example
/// from before a bluetoothd restart) is recognised and ignored.
struct RegistrationTicket: Hashable, Sendable, CustomStringConvertible {
    let value: Int
    var description: String { "#\(value)" }
}

/// Why a registration failed; the line is made in `description`.
enum RegistrationFailure: Equatable, Sendable, CustomStringConvertible {
    /// There was no adapter to register on.
    case noAdapter
    /// `RegisterApplication` failed on `adapter`.
    case application(BlueZError, adapter: String)
    /// `RegisterAdvertisement` of `name` failed on `adapter`, which reported `supports`.
    case advertisement(BlueZError, adapter: String, name: String, supports: String?)

    /// Whether bluetoothd's bus policy refused us.
    var isAccessDenied: Bool {
        switch self {
        case .noAdapter: return false
        case .application(let error, _), .advertisement(let error, _, _, _): return error.kind == .accessDenied
        }
    }

    var description: String {
        switch self {
        case .noAdapter:
            return "no adapter to register on"
        case .application(let error, let adapter):
            return "cannot register the GATT service on \(adapter): \(error)"
        case .advertisement(let error, let adapter, let name, let supports):
            let fix: String
            switch error.kind {
            case .notPermitted:
                fix =
                    "every advertising slot is in use: stop other advertisers (another relay-peripheral, "
                    + "'bluetoothctl advertise off') and type start again"
            case .failed, .invalidLength, .invalidArguments:
                fix =
                    "the adapter refused the advertisement: try a shorter --name, check that the adapter supports LE "
                    + "advertising (btmgmt info) and see bluetoothd's log"
            case .accessDenied:
                fix = AdapterProblem.accessDenied.description
            default:
                fix = error.hint.isEmpty ? "see bluetoothd's log (journalctl -u bluetooth)" : error.hint
            }
            let supported = supports.map { " — \(adapter) advertising: \($0)" } ?? ""
            return
                "cannot advertise as '\(name)' on \(adapter): \(error.name): \(error.message)\(supported); fix: \(fix)"
        }
    }
}

/// What the user asked of the registrations (advertise or not) and where each stands with
/// bluetoothd: the advertising life cycle, no I/O. Each method is one thing that happened and says
/// what it calls for; `PeripheralSession+Lifecycle` turns that into actions and reports. Part of
/// `PeripheralSession`.
struct PeripheralRegistrations: Equatable, Sendable {
    /// Where one registration stands with bluetoothd.
    enum Registration: Equatable, Sendable {
        case absent
        /// Requested with this ticket; its answer is awaited.
        case pending(RegistrationTicket)
        case active
    }

    /// The user asked to advertise (`start`) and did not `stop`.
    private(set) var wantsAdvertising = false
    /// The GATT application is wanted (from the first `start` until `quit`).
    private(set) var wantsApplication = false
    /// bluetoothd released the advertisement while powered: wait for `start` or a power cycle.
    private(set) var releasedByBlueZ = false
    private(set) var application = Registration.absent
    private(set) var advertisement = Registration.absent
    /// The registration renewing the advertisement after a central connected (a controller stops
    /// advertising at each connection, and Linux starts it again only for legacy advertising).
    private(set) var renewal: RegistrationTicket?
    /// The adapter refused to advertise while this many centrals were connected (its controller
    /// cannot advertise and be connected at once): no one else can join until one leaves.
    private(set) var heldByCentrals: Int?
    /// The last ticket given to a registration request.
    private var lastTicket = 0

    /// Both registrations are active: advertising as the user sees it.
    var isAdvertising: Bool { advertisement == .active && application == .active }

    /// A ticket for a new registration request.
    private mutating func makeTicket() -> RegistrationTicket {
        lastTicket += 1
        return RegistrationTicket(value: lastTicket)
    }

    /// `start`: the application and the advertisement are wanted.
    mutating func start() {
        wantsApplication = true
        wantsAdvertising = true
        releasedByBlueZ = false
    }

    /// `stop`: advertising is not wanted any more (the application stays).
    mutating func stop() {
        wantsAdvertising = false
        releasedByBlueZ = false
    }

    /// What to take back when relay quits.
    struct Withdrawal: Equatable, Sendable {
        var advertisement = false
        var application = false
    }

    /// `quit`: nothing is wanted; what was active is to be unregistered.
    mutating func quit() -> Withdrawal {
        wantsAdvertising = false
        wantsApplication = false
        defer {
            advertisement = .absent
            application = .absent
        }
        return Withdrawal(advertisement: advertisement == .active, application: application == .active)
    }

    /// The adapter is powered on: an advertisement bluetoothd released may be asked for again.
    mutating func poweredOn() {
        releasedByBlueZ = false
    }

    /// The adapter stopped (`lostBlueZ`: bluetoothd or the adapter went, and forgot every
    /// registration): true when the advertisement was active (it is to be taken back unless
    /// bluetoothd went). A renewal's late answer is then taken back, and nothing is held for
    /// centrals that are gone.
    mutating func paused(lostBlueZ: Bool) -> Bool {
        renewal = nil
        heldByCentrals = nil
        let wasActive = advertisement == .active
        if wasActive {
            advertisement = .absent
        } else if case .pending = advertisement, lostBlueZ {
            advertisement = .absent
        }
        if lostBlueZ { application = .absent }
        return wasActive
    }

    /// Whether `ticket` is the application's request awaiting its answer.
    func awaitsApplication(_ ticket: RegistrationTicket) -> Bool {
        application == .pending(ticket)
    }

    /// The application's request `ticket` succeeded: false when it was not the one awaited.
    mutating func applicationRegistered(_ ticket: RegistrationTicket) -> Bool {
        guard awaitsApplication(ticket) else { return false }
        application = .active
        return true
    }

    /// The application's request failed: nothing is wanted any more (a service that is not there
    /// is never advertised). True when an advertisement already active is to be taken back (one
    /// still pending is taken back when its answer comes).
    mutating func applicationFailed() -> Bool {
        application = .absent
        wantsApplication = false
        wantsAdvertising = false
        guard advertisement == .active else { return false }
        advertisement = .absent
        return true
    }

    /// What an advertisement's answer calls for.
    enum AdvertisementAnswer: Equatable, Sendable {
        /// Nothing (a late answer, or the advertisement is already as wanted).
        case none
        /// The advertisement is active.
        case active
        /// It is not wanted any more (stopped, paused or the service failed meanwhile): unregister it.
        case withdraw
        /// Ask again for what is wanted (`reconcile`).
        case reconcile
        /// The adapter refused it while centrals are connected: say so (the first time only).
        case held(centrals: Int)
        /// It failed: advertising is not wanted any more; say why.
        case failed
    }

    /// The advertisement's request `ticket` (or its renewal) succeeded.
    mutating func advertisementRegistered(_ ticket: RegistrationTicket, poweredOn: Bool) -> AdvertisementAnswer {
        if renewal == ticket {
            // Renewed after a connection: advertising went on. Stopped and started again meanwhile
            // (`reconcile` waited for this answer): it is the advertisement asked for. Stopped or
            // paused: taken back.
            renewal = nil
            guard wantsAdvertising, poweredOn else { return advertisement == .active ? .none : .withdraw }
            guard advertisement == .absent else { return .none }
            advertisement = .active
            return .active
        }
        guard advertisement == .pending(ticket) else { return .none }
        guard wantsAdvertising, poweredOn else {
            // Stopped, powered off or the service failed while the request was on its way.
            advertisement = .absent
            return .withdraw
        }
        advertisement = .active
        // After it was held, said again.
        heldByCentrals = nil
        return .active
    }

    /// The advertisement's request `ticket` (or its renewal) failed while `centrals` are connected.
    mutating func advertisementFailed(_ ticket: RegistrationTicket, centrals: Int) -> AdvertisementAnswer {
        let renewing = renewal == ticket
        if renewing {
            renewal = nil
            // Stopped (and maybe started again: `reconcile` waited for this answer) or paused meanwhile.
            guard advertisement == .active else { return .reconcile }
        } else {
            guard advertisement == .pending(ticket) else { return .none }
        }
        advertisement = .absent
        if renewing || heldByCentrals != nil, wantsAdvertising {
            guard centrals > 0 else {
                // Every central left while the answer was on its way: ask once more, as if new.
                heldByCentrals = nil
                return .reconcile
            }
            // Refused while centrals are connected: the controller cannot advertise then. Said
            // once; tried again when one leaves.
            let first = heldByCentrals == nil
            heldByCentrals = centrals
            return first ? .held(centrals: centrals) : .none
        }
        wantsAdvertising = false
        heldByCentrals = nil
        return .failed
    }

    /// A central connected: the ticket to renew the active advertisement with (nil: not now).
    /// Advertising counts as on while its renewal is on its way.
    mutating func renew(extendedAdvertising: Bool, poweredOn: Bool) -> RegistrationTicket? {
        guard extendedAdvertising, wantsAdvertising, advertisement == .active, renewal == nil, poweredOn else {
            return nil
        }
        let ticket = makeTicket()
        renewal = ticket
        return ticket
    }

    /// Whether advertising waits for a connected central to leave.
    var isHeld: Bool { heldByCentrals != nil }

    /// bluetoothd released the advertisement: true when advertising was wanted (then, while
    /// powered, it waits for `start` or a power cycle).
    mutating func released(poweredOn: Bool) -> Bool {
        guard advertisement != .absent else { return false }
        advertisement = .absent
        guard wantsAdvertising else { return false }
        if poweredOn { releasedByBlueZ = true }
        return true
    }

    /// The requests the wishes call for now (the adapter is powered).
    struct Requests: Equatable, Sendable {
        var application: RegistrationTicket?
        var advertisement: RegistrationTicket?
        /// The active advertisement is not wanted: unregister it.
        var withdrawAdvertisement = false
    }

    /// Asks for what is wanted and not there, and takes back what is there and not wanted. The
    /// application and the advertisement are requested together (they are independent in
    /// bluetoothd); not while a renewal is on its way: its answer decides.
    mutating func reconcile() -> Requests {
        var requests = Requests()
        if wantsApplication, application == .absent {
            let ticket = makeTicket()
            application = .pending(ticket)
            requests.application = ticket
        }
        if wantsAdvertising, !releasedByBlueZ, application != .absent, advertisement == .absent, renewal == nil {
            let ticket = makeTicket()
            advertisement = .pending(ticket)
            requests.advertisement = ticket
        }
        if !wantsAdvertising {
            heldByCentrals = nil
            if advertisement == .active {
                advertisement = .absent
                requests.withdrawAdvertisement = true
            }
        }
        return requests
    }
}
