import RelayDBus
import RelayRuntime

/// Which bus bluetoothd is on: the system bus, or (in tests) a private one.
public enum BlueZBus: Sendable, Hashable {
    /// The system bus (libdbus honours `DBUS_SYSTEM_BUS_ADDRESS`).
    case system
    /// A bus at this address, e.g. `unix:path=/tmp/bus`.
    case address(String)

    var dbus: DBusConnection.Bus {
        switch self {
        case .system: return .system
        case .address(let address): return .address(address)
        }
    }
}

/// Why a program could not reach the bus bluetoothd is on.
public enum BlueZConnectFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bus refused this user.
    case accessDenied(String)
    /// No bus (not running, no socket); the text is libdbus's.
    case unreachable(String)

    public var description: String {
        switch self {
        case .accessDenied(let detail), .unreachable(let detail): return detail
        }
    }
}

/// A call from another bus client on one of our objects, refused (only bluetoothd may call them).
public struct RefusedCall: Sendable, Hashable, CustomStringConvertible {
    /// The caller's unique bus name.
    public let sender: String
    public let path: String
    /// `interface.member`, or the member alone.
    public let method: String

    /// `org.bluez.GattCharacteristic1.WriteValue on /org/relay/... from :1.42`.
    public var description: String { "\(method) on \(path) from \(sender)" }
}

extension BlueZClient {
    /// A client on a new private connection to `bus`, woken by `loop`. Nothing happens until
    /// `start()`.
    public static func connect(to bus: BlueZBus, loop: EventLoop) throws(BlueZConnectFailure) -> BlueZClient {
        do {
            return BlueZClient(connection: try DBusConnection(bus: bus.dbus, loop: loop))
        } catch {
            let text = "\(error)"
            let words = text.split(whereSeparator: { !$0.isLetter && $0 != "." })
            if words.contains(where: { $0.hasSuffix("AccessDenied") || $0.lowercased().hasPrefix("permission") }) {
                throw .accessDenied(text)
            }
            throw .unreachable(text)
        }
    }

    /// Called for every call another bus client made on our objects (refused by the bus layer:
    /// only the owner of `org.bluez` may call them).
    public var onRefusedCall: ((RefusedCall) -> Void)? {
        get { refusedCallHandler }
        set {
            refusedCallHandler = newValue
            connection.onAccessDenied = newValue.map { handler in
                { (call: DeniedCall) in
                    let interface = call.interface.map { $0 + "." } ?? ""
                    handler(RefusedCall(sender: call.sender, path: call.path, method: interface + call.member))
                }
            }
        }
    }
}
