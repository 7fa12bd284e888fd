internal import CDBus

/// Reads `DBusValue`s from a libdbus message iterator. Never traps: anything unexpected
/// becomes `DBusError.malformedMessage`.
enum MessageDecoder {
    static func readAll(_ iter: inout DBusMessageIter) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    static func read(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case TypeCode.byte: return .byte(basic(&iter, UInt8(0)))
        case TypeCode.boolean: return .boolean(basic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iter, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iter, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iter, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iter, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iter, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iter, UInt64(0)))
        case TypeCode.double: return .double(basic(&iter, Double(0)))
        case TypeCode.string: return .string(try text(&iter))
        case TypeCode.objectPath:
            let text = try text(&iter)
            guard let path = ObjectPath(validating: text) else { throw .malformedMessage("bad object path '\(text)'") }
            return .objectPath(path)
        case TypeCode.signature:
            let text = try text(&iter)
            guard DBusSignature.isValid(text) else { throw .malformedMessage("bad signature '\(text)'") }
            return .signature(DBusSignature(unchecked: text))
        case TypeCode.unixFD:
            let fd = basic(&iter, Int32(-1))  // libdbus hands out a duplicate we own
            guard fd >= 0 else { throw .malformedMessage("unix fd argument without a descriptor") }
            return .unixFD(FileDescriptor(owning: fd))
        case TypeCode.array:
            return try array(&iter)
        case TypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            guard dbus_message_iter_get_arg_type(&sub) != TypeCode.invalid else {
                throw .malformedMessage("empty variant")
            }
            return .variant(try read(&sub))
        case TypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            let members = try readAll(&sub)
            guard !members.isEmpty else { throw .malformedMessage("empty struct") }
            return .structure(members)
        default:
            throw .malformedMessage("unexpected type code \(type)")
        }
    }

    private static func array(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        guard let full = signature(of: &iter), full.hasPrefix("a") else {
            throw .malformedMessage("array without signature")
        }
        let elementText = String(full.dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if dbus_message_iter_get_element_type(&iter) == TypeCode.dictEntry {
            // elementText is "{kv}": one basic key char, then the value type.
            let inner = Array(elementText.utf8.dropFirst().dropLast())
            guard elementText.hasPrefix("{"), elementText.hasSuffix("}"), inner.count >= 2 else {
                throw .malformedMessage("bad dict entry signature '\(elementText)'")
            }
            let key = DBusSignature(unchecked: String(decoding: inner[0..<1], as: UTF8.self))
            let value = DBusSignature(unchecked: String(decoding: inner[1...], as: UTF8.self))
            var entries: [(key: DBusValue, value: DBusValue)] = []
            while dbus_message_iter_get_arg_type(&sub) == TypeCode.dictEntry {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let members = try readAll(&pair)
                guard members.count == 2 else { throw .malformedMessage("dict entry with \(members.count) members") }
                entries.append((key: members[0], value: members[1]))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: value, entries)
        }
        guard DBusSignature.isValid(elementText) else {
            throw .malformedMessage("bad array element signature '\(elementText)'")
        }
        let element = DBusSignature(unchecked: elementText)
        if element == .byte {
            return .byteArray(fixedBytes(&sub))
        }
        return .array(element: element, try readAll(&sub))
    }

    /// An `ay` in one copy (`dbus_message_iter_get_fixed_array`): no per-byte values.
    private static func fixedBytes(_ sub: inout DBusMessageIter) -> [UInt8] {
        var pointer: UnsafeMutableRawPointer? = nil
        var count: Int32 = 0
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
        guard count > 0, let pointer else { return [] }
        return Array(UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: Int(count)))
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func text(_ iter: inout DBusMessageIter) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iter, $0) }
        guard let pointer else { throw .malformedMessage("missing string") }
        return String(cString: pointer)
    }

    private static func signature(of iter: inout DBusMessageIter) -> String? {
        guard let chars = dbus_message_iter_get_signature(&iter) else { return nil }
        defer { dbus_free(chars) }
        return String(cString: chars)
    }
}
