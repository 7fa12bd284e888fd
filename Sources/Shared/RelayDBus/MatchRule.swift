/// A signal match rule (D-Bus specification, "Match Rules"); `nil` fields match anything.
public struct MatchRule: Hashable, Sendable, CustomStringConvertible {
    /// Bus name of the sender: a well-known name (`org.bluez`, resolved to its current owner)
    /// or a unique name (`:1.7`).
    public var sender: String?
    /// Exact object path.
    public var path: ObjectPath?
    /// Object path namespace: this path and everything below it.
    public var pathNamespace: ObjectPath?
    public var interface: String?
    public var member: String?
    /// The first argument, when it is a string equal to this.
    public var arg0: String?

    public init(
        sender: String? = nil, path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil,
        interface: String? = nil, member: String? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule text sent to the bus with `AddMatch`.
    public var ruleString: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // A quote ends the quoted text, is escaped, and quoting resumes: ' -> '\''.
            let escaped = value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
            parts.append("\(key)='\(escaped)'")
        }
        add("sender", sender)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        add("interface", interface)
        add("member", member)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    public var description: String { ruleString }

    /// Whether the sender field names a well-known name (needs owner resolution).
    var senderIsWellKnown: Bool { sender.map { !$0.hasPrefix(":") } ?? false }

    /// Local routing: whether `signal` matches, given the sender's resolved unique name
    /// (`.unknown`: the rule names no sender; `.pending`: never matches, the signal waits).
    func matches(_ signal: DBusSignal, senderOwner: SenderOwner) -> Bool {
        if let sender {
            switch senderOwner {
            case .unique(let owner): if signal.sender != owner && signal.sender != sender { return false }
            case .none: if signal.sender != sender { return false }
            case .unknown: break
            case .pending: return false
            }
        }
        if let path, signal.path != path { return false }
        if let pathNamespace, signal.path != pathNamespace, !signal.path.isDescendant(of: pathNamespace) {
            return false
        }
        if let interface, signal.interface != interface { return false }
        if let member, signal.member != member { return false }
        if let arg0, signal.arguments.first?.asString != arg0 { return false }
        return true
    }

    /// What is known about the owner of the rule's sender name.
    enum SenderOwner {
        case unique(String)
        case none
        /// The rule names no sender.
        case unknown
        /// The rule names a well-known sender whose owner is not known yet.
        case pending
    }
}

/// A received signal.
public struct DBusSignal: Sendable, CustomStringConvertible {
    /// The sender's unique name.
    public var sender: String
    public var path: ObjectPath
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String, path: ObjectPath, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    public var description: String { "\(sender) \(path) \(interface).\(member)\(arguments)" }
}
