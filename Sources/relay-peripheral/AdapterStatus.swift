import Shared

/// The adapter's state as the original app logs its manager state.
enum AdapterStatus: Equatable, Sendable {
    /// Powered and usable.
    case poweredOn
    /// Present but switched off (rfkill, `btmgmt power off`, `bluetoothctl power off`).
    case poweredOff
    /// No usable adapter: bluetoothd is not running, or has no (matching) adapter. The text says which and the fix.
    case notAvailable(String)
    /// The system bus refused us: not allowed to talk to bluetoothd. The text names the policy/group.
    case notPermitted(String)

    /// The JSON `state` value (the words of the original apps' manager states, as relay-central uses them).
    var name: String {
        switch self {
        case .poweredOn: return "poweredOn"
        case .poweredOff: return "poweredOff"
        case .notAvailable: return "notAvailable"
        case .notPermitted: return "notPermitted"
        }
    }

    /// The cause and fix, when not powered on.
    var detail: String? {
        switch self {
        case .poweredOn: return nil
        case .poweredOff: return "switch it on with 'bluetoothctl power on' (or 'rfkill unblock bluetooth')"
        case .notAvailable(let detail), .notPermitted(let detail): return detail
        }
    }

    /// A short phrase: `powered on`, `not available`.
    var phrase: String {
        switch self {
        case .poweredOn: return "powered on"
        case .poweredOff: return "powered off"
        case .notAvailable: return "not available"
        case .notPermitted: return "not permitted"
        }
    }

    /// The line shown in human mode.
    var humanDescription: String {
        switch self {
        case .poweredOn: return "Bluetooth is powered on"
        case .poweredOff: return "Bluetooth is powered off: " + (detail ?? "")
        case .notAvailable(let detail): return "Bluetooth is not available: " + detail
        case .notPermitted(let detail): return "Bluetooth is not permitted: " + detail
        }
    }
}
