import RelayCLI

/// What `--check` looks at, by the name its lines and JSON use.
public enum CheckName: String, Sendable, CaseIterable {
    /// The system D-Bus is reachable.
    case bus
    /// bluetoothd owns `org.bluez` and answers this user.
    case bluetoothd
    /// The installed BlueZ is one relay works with.
    case bluez
    /// The adapter chosen (`--adapter`, or the first) exists.
    case adapter
    /// No rfkill switch blocks it.
    case rfkill
    /// It is powered on.
    case powered
    /// It speaks Bluetooth LE in this program's role.
    case lowEnergy = "le"
    /// A test advertisement can be registered (relay-peripheral).
    case advertising
    /// bluetoothd advertises at the interval asked for, and what else a presenter's laptop
    /// with a class of centrals needs (relay-peripheral).
    case room
    /// A test GATT application can be registered (relay-peripheral).
    case gattApplication = "gatt-application"
    /// The pairing agent can be registered as the default one (relay-peripheral `--secure`).
    case agent
    /// Discovery starts and stops (relay-central).
    case discovery
    /// What the adapter reports of 2M PHY and extended advertising, and what that means.
    case features
    /// The kernel opens LE L2CAP channel sockets: the lane (`--lane auto|l2cap`) can be used.
    case lane
}

/// One line of `--check`: a check, how it went, what was seen, and the fix when it is not ok.
public struct CheckFinding: ReportableEvent, Equatable, Sendable {
    /// How a check went.
    public enum Status: String, Sendable {
        /// The program can rely on it.
        case ok
        /// It works, less well than it could (the fix says how to do better).
        case warning
        /// The program cannot play its part until it is fixed.
        case failed
    }

    public let check: CheckName
    public let status: Status
    public let detail: String
    /// The one command or setting that fixes it; present on every warning and failure.
    public let fix: String?

    public static func ok(_ check: CheckName, _ detail: String) -> CheckFinding {
        CheckFinding(check: check, status: .ok, detail: detail, fix: nil)
    }

    public static func warning(_ check: CheckName, _ detail: String, fix: String) -> CheckFinding {
        CheckFinding(check: check, status: .warning, detail: detail, fix: fix)
    }

    public static func failed(_ check: CheckName, _ detail: String, fix: String) -> CheckFinding {
        CheckFinding(check: check, status: .failed, detail: detail, fix: fix)
    }

    public var name: String { "check" }

    /// `check`, `status`, `detail` and, unless ok, `fix`.
    public var fields: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("check", .string(check.rawValue)), ("status", .string(status.rawValue)), ("detail", .string(detail)),
        ]
        if let fix { fields.append(("fix", .string(fix))) }
        return fields
    }

    /// `ok       powered           hci0 is on`, `failed   rfkill            ...; fix: rfkill unblock bluetooth`.
    public var humanDescription: String {
        func padded(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(1, width - text.count))
        }
        return padded(status.rawValue, 9) + padded(check.rawValue, 18) + detail + (fix.map { "; fix: \($0)" } ?? "")
    }
}

/// The last line of `--check`: whether the program can play its part on this machine.
public struct CheckSummary: ReportableEvent, Equatable, Sendable {
    public let program: String
    public let failed: Int
    public let warnings: Int

    public init(program: String, findings: [CheckFinding]) {
        self.program = program
        failed = findings.filter { $0.status == .failed }.count
        warnings = findings.filter { $0.status == .warning }.count
    }

    /// Whether nothing failed.
    public var ready: Bool { failed == 0 }

    public var name: String { "checked" }

    public var fields: [(String, JSONValue)] {
        [
            ("program", .string(program)), ("ready", .bool(ready)), ("failed", .integer(Int64(failed))),
            ("warnings", .integer(Int64(warnings))),
        ]
    }

    public var humanDescription: String {
        let warned = warnings == 0 ? "" : " (\(warnings) warning\(warnings == 1 ? "" : "s"))"
        return ready
            ? "\(program) can play its part on this machine\(warned)"
            : "\(program) cannot play its part here: \(failed) check\(failed == 1 ? "" : "s") failed\(warned)"
    }
}
