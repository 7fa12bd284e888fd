internal import CDBus

/// An owned reference to a libdbus message (internal; never exposed).
final class Message {
    let raw: OpaquePointer

    /// Takes over one reference the caller already holds.
    init(taking raw: OpaquePointer) { self.raw = raw }

    /// Adds a reference of our own.
    init(retaining raw: OpaquePointer) {
        dbus_message_ref(raw)
        self.raw = raw
    }

    deinit { dbus_message_unref(raw) }

    enum Kind { case methodCall, methodReturn, error, signal, other }

    static func methodCall(
        destination: String?, path: ObjectPath, interface: String?, member: String
    ) throws(DBusError) -> Message {
        if let destination { try Names.checkBusName(destination) }
        if let interface { try Names.checkInterface(interface) }
        try Names.checkMember(member)
        guard
            let raw = dbus_message_new_method_call(destination, path.rawValue, interface, member)
        else { throw .outOfMemory }
        return Message(taking: raw)
    }

    static func signal(path: ObjectPath, interface: String, member: String) throws(DBusError) -> Message {
        try Names.checkInterface(interface)
        try Names.checkMember(member)
        guard let raw = dbus_message_new_signal(path.rawValue, interface, member) else { throw .outOfMemory }
        return Message(taking: raw)
    }

    /// A method return for this call.
    func makeReturn() throws(DBusError) -> Message {
        guard let reply = dbus_message_new_method_return(raw) else { throw .outOfMemory }
        return Message(taking: reply)
    }

    /// An error reply for this call; an invalid error name becomes `Failed`.
    func makeError(_ error: DBusRemoteError) throws(DBusError) -> Message {
        let name = Names.isValidErrorName(error.name) ? error.name : DBusRemoteError.Names.failed
        let text = error.message.utf8.contains(0) ? String(error.message.prefix { $0 != "\0" }) : error.message
        guard let reply = dbus_message_new_error(raw, name, text) else { throw .outOfMemory }
        return Message(taking: reply)
    }

    var kind: Kind {
        switch dbus_message_get_type(raw) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: return .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: return .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: return .error
        case DBUS_MESSAGE_TYPE_SIGNAL: return .signal
        default: return .other
        }
    }

    var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    var pathString: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    var signatureString: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }

    /// Appends the values as arguments (validated first, so libdbus never sees a bad value).
    func append(_ values: [DBusValue]) throws(DBusError) {
        for value in values { try value.validate() }
        guard values.signature.rawValue.utf8.count <= 255 else { throw .invalidValue("signature too long") }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values { try MessageEncoder.append(value, to: &iter) }
    }

    /// Reads all arguments.
    func arguments() throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        return try MessageDecoder.readAll(&iter)
    }

    /// The wire bytes of this message (file descriptors are not part of them).
    func marshal() throws(DBusError) -> [UInt8] {
        if dbus_message_get_serial(raw) == 0 { dbus_message_set_serial(raw, 1) }  // required to marshal
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &buffer, &length) != 0, let buffer else { throw .outOfMemory }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Parses wire bytes; invalid bytes give `malformedMessage`.
    static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> Message {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                dbus_message_demarshal(chars.baseAddress, Int32(chars.count), &error)
            }
        }
        guard let parsed else {
            let why = error.message.map { String(cString: $0) } ?? "unparseable"
            throw .malformedMessage(why)
        }
        return Message(taking: parsed)
    }
}

/// Name validation through libdbus, so invalid names become errors instead of libdbus aborts.
enum Names {
    static func checkBusName(_ name: String) throws(DBusError) {
        guard !name.utf8.contains(0), name.withCString({ dbus_validate_bus_name($0, nil) }) != 0 else {
            throw .invalidName("bus name '\(name)'")
        }
    }
    static func checkInterface(_ name: String) throws(DBusError) {
        guard !name.utf8.contains(0), name.withCString({ dbus_validate_interface($0, nil) }) != 0 else {
            throw .invalidName("interface '\(name)'")
        }
    }
    static func checkMember(_ name: String) throws(DBusError) {
        guard !name.utf8.contains(0), name.withCString({ dbus_validate_member($0, nil) }) != 0 else {
            throw .invalidName("member '\(name)'")
        }
    }
    static func isValidErrorName(_ name: String) -> Bool {
        !name.utf8.contains(0) && name.withCString({ dbus_validate_error_name($0, nil) }) != 0
    }
}
