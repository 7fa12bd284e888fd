import RelayBlueZ
import RelayCLI

/// Why Bluetooth cannot be used. The cause travels up typed; `description` makes the one line
/// that says what is missing and how to fix it (the only place this text is made).
public enum AdapterProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The program could not connect to the system D-Bus; `detail` is what the bus said.
    case noSystemBus(detail: String)
    /// The system bus policy does not let this user talk to bluetoothd.
    case accessDenied
    /// Nobody owns `org.bluez` on the system bus.
    case bluetoothdNotRunning
    /// bluetoothd runs but has no adapter.
    case noAdapter
    /// The adapter `--adapter` names is not there; `available` is what bluetoothd has.
    case notFound(AdapterChoice, available: [String])
    /// The adapter lacks `GattManager1`/`LEAdvertisingManager1` (no LE, or an old bluetoothd).
    case noLowEnergy(adapter: String)

    /// What is missing, without the fix.
    public var cause: String {
        switch self {
        case .noSystemBus(let detail): "cannot connect to the system D-Bus (\(detail))"
        case .accessDenied: "the system bus policy does not let this user talk to bluetoothd"
        case .bluetoothdNotRunning: "bluetoothd is not running (nobody owns org.bluez on the system bus)"
        case .noAdapter: "bluetoothd has no adapter"
        case .notFound(let choice, let available):
            "adapter \(choice) not found (bluetoothd has: \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
        case .noLowEnergy(let adapter): "\(adapter) offers no GattManager1/LEAdvertisingManager1: it needs Bluetooth LE"
        }
    }

    /// The one command or setting that fixes it.
    public var fix: String {
        switch self {
        case .noSystemBus: "is dbus running? (systemctl start dbus)"
        case .accessDenied:
            "run as root or as a member of the 'bluetooth' group (policy: /etc/dbus-1/system.d/bluetooth.conf)"
        case .bluetoothdNotRunning: "start it, e.g. systemctl start bluetooth (Debian package: bluez)"
        case .noAdapter: "plug one in or load its driver, then check with 'bluetoothctl list'"
        case .notFound: "name one of those with --adapter"
        case .noLowEnergy:
            "check ControllerMode in /etc/bluetooth/main.conf and run bluetoothd 5.50 or newer"
        }
    }

    /// The cause and its fix, in one line (a missing adapter names what there is instead).
    public var description: String {
        if case .notFound = self { return cause }
        if case .noLowEnergy = self { return cause + " (" + fix + ")" }
        return cause + ": " + fix
    }
}

extension AdapterProblem {
    /// Why the bus could not be reached, as an adapter problem (both programs and `--check`).
    public init(_ failure: BlueZConnectFailure) {
        switch failure {
        case .accessDenied: self = .accessDenied
        case .unreachable(let detail): self = .noSystemBus(detail: detail)
        }
    }
}

/// The adapter's state, in the words the original apps log their manager state with.
public enum AdapterState: Equatable, Sendable {
    /// Not known yet (waiting for bluetoothd's first answers).
    case unknown
    /// Powered and usable.
    case poweredOn
    /// Present but switched off (rfkill, `bluetoothctl power off`).
    case poweredOff
    /// Not usable, for the reason given.
    case unavailable(AdapterProblem)

    /// The JSON `state` value: `unknown`, `poweredOn`, `poweredOff`, `notAvailable`, `notPermitted`.
    public var word: String {
        switch self {
        case .unknown: return "unknown"
        case .poweredOn: return "poweredOn"
        case .poweredOff: return "poweredOff"
        case .unavailable(.accessDenied): return "notPermitted"
        case .unavailable: return "notAvailable"
        }
    }

    /// A short phrase: `powered on`, `not available`.
    public var phrase: String {
        switch self {
        case .unknown: return "unknown"
        case .poweredOn: return "powered on"
        case .poweredOff: return "powered off"
        case .unavailable(.accessDenied): return "not permitted"
        case .unavailable: return "not available"
        }
    }

    /// The cause and fix when Bluetooth cannot be used (nil when powered on).
    public var problem: String? {
        switch self {
        case .unknown: return "the adapter is not known yet (waiting for bluetoothd)"
        case .poweredOn: return nil
        case .poweredOff: return "switch it on with 'bluetoothctl power on' (or 'rfkill unblock bluetooth')"
        case .unavailable(let problem): return problem.description
        }
    }

    /// The whole line when Bluetooth cannot be used, e.g. `Bluetooth is powered off: switch it
    /// on with ...`; nil when powered on.
    public var problemSentence: String? {
        guard let problem else { return nil }
        return self == .unknown ? problem : "Bluetooth is \(phrase): \(problem)"
    }

    /// The `state` event's line: `Bluetooth is powered on (hci0 00:AA:01:00:00:00)`, or the
    /// problem sentence with the adapter.
    public func humanDescription(adapter: AdapterInfo?) -> String {
        let on = adapter.map { " (\($0))" } ?? ""
        if self == .poweredOn || self == .unknown { return "Bluetooth is \(phrase)\(on)" }
        return "Bluetooth is \(phrase)\(on): \(problem ?? "")"
    }

    /// The `state` event's JSON fields: `state`, `adapter`, `address`, `detail`.
    public func eventFields(adapter: AdapterInfo?) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("state", .string(word))]
        if let adapter {
            fields.append(("adapter", .string(adapter.name)))
            if let address = adapter.address { fields.append(("address", .string(address.description))) }
        }
        if self != .poweredOn, self != .unknown, let problem { fields.append(("detail", .string(problem))) }
        return fields
    }
}
