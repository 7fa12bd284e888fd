/// A failure of a BlueZ operation, typed.
///
/// Remote errors keep their D-Bus error `name` and the `message` bluetoothd sent; `kind`
/// classifies them (`org.bluez.Error.*` and the D-Bus errors that matter to a BlueZ client).
/// Failures detected locally (a reply of the wrong shape, an object that went away) use the
/// `relay.Error.*` names.
public struct BlueZError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as far as a program needs to decide.
    public enum Kind: Hashable, Sendable {
        // org.bluez.Error.*
        case notReady, inProgress, notPermitted, notAuthorized, failed, alreadyExists, doesNotExist
        case invalidArguments, invalidLength, invalidOffset, invalidValueLength, notSupported
        case alreadyConnected, notConnected, notAvailable, notAcquired, notFound, rejected, canceled
        case connectionAttemptFailed, authenticationFailed, authenticationCanceled, authenticationRejected
        case authenticationTimeout, improperlyConfigured, outOfRange
        // org.freedesktop.DBus.Error.*
        /// Nobody owns the name: bluetoothd is not running.
        case serviceUnknown
        /// The bus policy refused the call.
        case accessDenied
        /// No reply in time (`NoReply`, `Timeout`, `TimedOut`).
        case noReply
        /// The object or interface does not exist (`UnknownObject`, `UnknownInterface`, `UnknownMethod`).
        case unknownObject
        /// The bus connection is gone.
        case disconnected
        // Local
        /// A reply or property had a shape other than the BlueZ API documents.
        case unexpectedReply
        /// The object (adapter, device, characteristic) is not, or no longer, known.
        case gone
        /// Any other error name (kept in `name`).
        case other
    }

    /// The classification.
    public let kind: Kind
    /// The full error name, e.g. `org.bluez.Error.NotReady`.
    public let name: String
    /// The message as received (may be empty).
    public let message: String

    /// An error from its D-Bus name and message.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
        self.kind = Self.kind(forName: name)
    }

    /// A locally detected error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
        self.name = Self.localNames[kind] ?? "relay.Error.Other"
    }

    private static let bluezNames: [String: Kind] = [
        "NotReady": .notReady, "InProgress": .inProgress, "NotPermitted": .notPermitted,
        "NotAuthorized": .notAuthorized, "Failed": .failed, "AlreadyExists": .alreadyExists,
        "DoesNotExist": .doesNotExist, "InvalidArguments": .invalidArguments,
        "InvalidLength": .invalidLength, "InvalidOffset": .invalidOffset,
        "InvalidValueLength": .invalidValueLength, "NotSupported": .notSupported,
        "AlreadyConnected": .alreadyConnected, "NotConnected": .notConnected,
        "NotAvailable": .notAvailable, "NotAcquired": .notAcquired, "NotFound": .notFound,
        "Rejected": .rejected, "Canceled": .canceled, "ConnectionAttemptFailed": .connectionAttemptFailed,
        "AuthenticationFailed": .authenticationFailed, "AuthenticationCanceled": .authenticationCanceled,
        "AuthenticationRejected": .authenticationRejected, "AuthenticationTimeout": .authenticationTimeout,
        "ImproperlyConfigured": .improperlyConfigured, "OutOfRange": .outOfRange,
    ]

    private static let dbusNames: [String: Kind] = [
        "ServiceUnknown": .serviceUnknown, "NameHasNoOwner": .serviceUnknown, "AccessDenied": .accessDenied,
        "NoReply": .noReply, "Timeout": .noReply, "TimedOut": .noReply, "UnknownObject": .unknownObject,
        "UnknownInterface": .unknownObject, "UnknownMethod": .unknownObject, "Disconnected": .disconnected,
        "NoServer": .disconnected, "InvalidArgs": .invalidArguments, "NotSupported": .notSupported,
    ]

    private static let localNames: [Kind: String] = [
        .unexpectedReply: "relay.Error.UnexpectedReply", .gone: "relay.Error.Gone",
        .disconnected: "relay.Error.Disconnected", .noReply: "relay.Error.NoReply",
    ]

    static func kind(forName name: String) -> Kind {
        let bluez = "org.bluez.Error."
        let dbus = "org.freedesktop.DBus.Error."
        if name.hasPrefix(bluez) { return bluezNames[String(name.dropFirst(bluez.count))] ?? .other }
        if name.hasPrefix(dbus) { return dbusNames[String(name.dropFirst(dbus.count))] ?? .other }
        return .other
    }

    /// Whether it says the thing to remove is gone already (an unregistration that succeeded in effect).
    public var meansAlreadyGone: Bool {
        [.doesNotExist, .serviceUnknown, .unknownObject, .disconnected].contains(kind)
    }

    /// What to do about it, in a few words (empty when there is nothing general to say).
    public var hint: String {
        switch kind {
        case .notReady: return "power the adapter on, e.g. bluetoothctl power on"
        case .inProgress: return "the same operation is already running: wait for it or retry later"
        case .notPermitted: return "the operation is not permitted in this state (or the limit is reached)"
        case .notAuthorized: return "the peer requires pairing or authorization"
        case .failed: return "bluetoothd reported a failure: see its log, journalctl -u bluetooth"
        case .alreadyExists: return "it is already registered"
        case .doesNotExist: return "it is not (or no longer) registered"
        case .invalidArguments, .invalidLength, .invalidOffset, .invalidValueLength:
            return "the request was malformed or too large"
        case .notSupported: return "the adapter or peer does not support this"
        case .alreadyConnected: return "already connected"
        case .notConnected: return "the device is not connected: connect first"
        case .notAvailable, .notFound, .gone: return "the device or attribute is gone: scan or connect again"
        case .notAcquired: return "the characteristic was not acquired"
        case .connectionAttemptFailed, .canceled, .rejected:
            return "the peer did not accept the connection: move closer and retry"
        case .authenticationFailed, .authenticationCanceled, .authenticationRejected, .authenticationTimeout:
            return "pairing failed: remove the device and pair again"
        case .improperlyConfigured: return "bluetoothd's configuration does not allow this"
        case .outOfRange: return "the device is out of range"
        case .serviceUnknown: return "bluetoothd is not running: start it, e.g. systemctl start bluetooth"
        case .accessDenied:
            return "the system bus policy refused it: run as root or as a member of the 'bluetooth' group"
        case .noReply: return "bluetoothd did not answer in time"
        case .unknownObject: return "the object is gone (adapter removed or bluetoothd restarted)"
        case .disconnected: return "the D-Bus connection was lost"
        case .unexpectedReply: return "bluetoothd's reply did not match the BlueZ API: version mismatch?"
        case .other: return ""
        }
    }

    /// One line: the short name, the message, and the hint.
    public var description: String {
        let short = name.split(separator: ".").last.map(String.init) ?? name
        var line = short
        if !message.isEmpty && message != short { line += ": " + message }
        if !hint.isEmpty { line += " (" + hint + ")" }
        return line
    }
}
