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
/// bluetoothd. Part of `PeripheralSession` (see `PeripheralSession+Lifecycle`).
struct PeripheralRegistrations: Equatable, Sendable {
    /// The user asked to advertise (`start`) and did not `stop`.
    var wantsAdvertising = false
    /// The GATT application is wanted (from the first `start` until `quit`).
    var wantsApplication = false
    /// bluetoothd released the advertisement while powered: wait for `start` or a power cycle.
    var releasedByBlueZ = false
    var application = PeripheralSession.Registration.absent
    var advertisement = PeripheralSession.Registration.absent
    /// The registration renewing the advertisement after a central connected (a controller stops
    /// advertising at each connection, and Linux starts it again only for legacy advertising).
    var renewal: RegistrationTicket?
    /// The adapter refused to advertise while this many centrals were connected (its controller
    /// cannot advertise and be connected at once): no one else can join until one leaves.
    var heldByCentrals: Int?
    /// The last ticket given to a registration request.
    var lastTicket = 0

    /// A ticket for a new registration request.
    mutating func makeTicket() -> RegistrationTicket {
        lastTicket += 1
        return RegistrationTicket(value: lastTicket)
    }
}
