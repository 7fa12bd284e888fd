internal import CDBus

/// Appends validated `DBusValue`s to a libdbus message iterator.
enum MessageEncoder {
    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(var v): try basic(&iter, TypeCode.byte, &v)
        case .boolean(let b):
            var v: dbus_bool_t = b ? 1 : 0
            try basic(&iter, TypeCode.boolean, &v)
        case .int16(var v): try basic(&iter, TypeCode.int16, &v)
        case .uint16(var v): try basic(&iter, TypeCode.uint16, &v)
        case .int32(var v): try basic(&iter, TypeCode.int32, &v)
        case .uint32(var v): try basic(&iter, TypeCode.uint32, &v)
        case .int64(var v): try basic(&iter, TypeCode.int64, &v)
        case .uint64(var v): try basic(&iter, TypeCode.uint64, &v)
        case .double(var v): try basic(&iter, TypeCode.double, &v)
        case .string(let s): try text(&iter, TypeCode.string, s)
        case .objectPath(let p): try text(&iter, TypeCode.objectPath, p.rawValue)
        case .signature(let g): try text(&iter, TypeCode.signature, g.rawValue)
        case .unixFD(let fd):
            guard var raw = fd.rawValue else { throw .invalidValue("file descriptor is closed") }
            try basic(&iter, TypeCode.unixFD, &raw)  // libdbus duplicates it
        case .byteArray(let bytes):
            try byteArray(&iter, bytes)
        case .array(let element, let items) where element == .byte:
            try byteArray(&iter, items.map { if case .byte(let b) = $0 { return b } else { return 0 } })  // validated
        case .array(let element, let items):
            try container(&iter, TypeCode.array, element.rawValue) { (sub: inout DBusMessageIter) throws(DBusError) in
                for item in items { try append(item, to: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key.rawValue + valueType.rawValue + "}"
            try container(&iter, TypeCode.array, entrySignature) { (sub: inout DBusMessageIter) throws(DBusError) in
                for entry in entries {
                    try container(&sub, TypeCode.dictEntry, nil) {
                        (pair: inout DBusMessageIter) throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
        case .variant(let inner):
            try container(&iter, TypeCode.variant, inner.signature.rawValue) {
                (sub: inout DBusMessageIter) throws(DBusError) in
                try append(inner, to: &sub)
            }
        case .structure(let members):
            try container(&iter, TypeCode.structure, nil) { (sub: inout DBusMessageIter) throws(DBusError) in
                for member in members { try append(member, to: &sub) }
            }
        }
    }

    /// An `ay` in one copy (`dbus_message_iter_append_fixed_array`).
    private static func byteArray(_ iter: inout DBusMessageIter, _ bytes: [UInt8]) throws(DBusError) {
        guard bytes.count <= Int(Int32.max) else { throw .invalidValue("byte array too long") }
        try container(&iter, TypeCode.array, "y") { (sub: inout DBusMessageIter) throws(DBusError) in
            let ok = bytes.withUnsafeBufferPointer { buffer -> dbus_bool_t in
                var start = buffer.baseAddress
                return withUnsafeMutablePointer(to: &start) {
                    dbus_message_iter_append_fixed_array(&sub, TypeCode.byte, $0, Int32(buffer.count))
                }
            }
            guard ok != 0 else { throw .outOfMemory }
        }
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: inout T) throws(DBusError) {
        let ok = withUnsafeMutablePointer(to: &value) { dbus_message_iter_append_basic(&iter, type, $0) }
        guard ok != 0 else { throw .outOfMemory }
    }

    private static func text(_ iter: inout DBusMessageIter, _ type: Int32, _ string: String) throws(DBusError) {
        let ok = string.withCString { chars -> dbus_bool_t in
            var pointer: UnsafePointer<CChar>? = chars
            return withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, type, $0) }
        }
        guard ok != 0 else { throw .outOfMemory }
    }

    private static func container(
        _ iter: inout DBusMessageIter, _ type: Int32, _ contained: String?,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { throw .outOfMemory }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw .outOfMemory }
    }
}
