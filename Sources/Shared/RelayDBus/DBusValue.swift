/// One D-Bus value, lossless: every basic type, arrays with an explicit element type,
/// dictionaries with an explicit key and value type, variants and structs.
///
/// Containers carry their element signature so an empty array or dictionary keeps its
/// type on the wire. Use `validate()` (done automatically when sending) to check that
/// elements agree with the declared signature.
///
/// An `ay` has two spellings that compare equal: `byteArray` (one contiguous buffer, what
/// `.bytes(_:)` builds and what every received `ay` decodes to) and `.array(element: .byte, ...)`.
public enum DBusValue: Sendable, CustomStringConvertible {
    case byte(UInt8)
    /// A boolean (32 bits on the wire).
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(DBusSignature)
    /// A Unix file descriptor (type `h`); the value owns it.
    case unixFD(FileDescriptor)
    /// An `ay` as one contiguous buffer (no per-byte values: the GATT payload path).
    case byteArray([UInt8])
    /// An array whose elements all have the signature `element`.
    indirect case array(element: DBusSignature, [DBusValue])
    /// A dictionary `a{kv}`; `key` must be a basic type. Entry order is kept.
    indirect case dictionary(key: DBusSignature, value: DBusSignature, [(key: DBusValue, value: DBusValue)])
    /// A variant: a value carrying its own type.
    indirect case variant(DBusValue)
    /// A struct of one or more members.
    indirect case structure([DBusValue])

    /// The value's complete type signature.
    public var signature: DBusSignature {
        switch self {
        case .byte: return .byte
        case .boolean: return .boolean
        case .int16: return .int16
        case .uint16: return .uint16
        case .int32: return .int32
        case .uint32: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .double: return .double
        case .string: return .string
        case .objectPath: return .objectPath
        case .signature: return .signature
        case .unixFD: return .unixFD
        case .byteArray: return .array(of: .byte)
        case .array(let element, _): return .array(of: element)
        case .dictionary(let key, let value, _): return .dictionary(key: key, value: value)
        case .variant: return .variant
        case .structure(let members): return .structure(members.map(\.signature))
        }
    }

    /// Checks that containers agree with their declared types, that dictionary keys are basic,
    /// that structs are not empty, strings hold no NUL and descriptors are open.
    public func validate() throws(DBusError) {
        switch self {
        case .string(let text):
            if text.utf8.contains(0) { throw .invalidValue("string contains NUL") }
        case .unixFD(let fd):
            if fd.rawValue == nil { throw .invalidValue("file descriptor is closed") }
        case .array(let element, let items) where element == .byte:
            // Fast path for `ay` (notification payloads).
            for item in items {
                guard case .byte = item else { throw .invalidValue("array of 'y' holds a '\(item.signature)'") }
            }
            return
        case .array(let element, let items):
            guard element.isSingleCompleteType else {
                throw .invalidValue("array element signature '\(element)' is not one complete type")
            }
            for item in items {
                guard item.signature == element else {
                    throw .invalidValue("array of '\(element)' holds a '\(item.signature)'")
                }
                try item.validate()
            }
        case .dictionary(let key, let value, let entries):
            guard key.isBasic else { throw .invalidValue("dictionary key '\(key)' is not a basic type") }
            guard value.isSingleCompleteType else {
                throw .invalidValue("dictionary value signature '\(value)' is not one complete type")
            }
            for entry in entries {
                guard entry.key.signature == key, entry.value.signature == value else {
                    throw .invalidValue(
                        "dictionary a{\(key)\(value)} holds a {\(entry.key.signature)\(entry.value.signature)}")
                }
                try entry.key.validate()
                try entry.value.validate()
            }
        case .variant(let inner):
            try inner.validate()
        case .structure(let members):
            guard !members.isEmpty else { throw .invalidValue("empty struct") }
            for member in members { try member.validate() }
        default:
            break
        }
        if case .array = self, !signature.isSingleCompleteType {
            throw .invalidValue("signature '\(signature)' is too deep or too long")
        } else if case .dictionary = self, !signature.isSingleCompleteType {
            throw .invalidValue("signature '\(signature)' is too deep or too long")
        } else if case .structure = self, !signature.isSingleCompleteType {
            throw .invalidValue("signature '\(signature)' is too deep or too long")
        }
    }

    public var description: String {
        switch self {
        case .byte(let v): return "byte \(v)"
        case .boolean(let v): return "\(v)"
        case .int16(let v): return "int16 \(v)"
        case .uint16(let v): return "uint16 \(v)"
        case .int32(let v): return "int32 \(v)"
        case .uint32(let v): return "uint32 \(v)"
        case .int64(let v): return "int64 \(v)"
        case .uint64(let v): return "uint64 \(v)"
        case .double(let v): return "double \(v)"
        case .string(let v): return "\"\(v)\""
        case .objectPath(let v): return "path \(v)"
        case .signature(let v): return "signature \(v)"
        case .unixFD(let v): return v.description
        case .byteArray(let bytes):
            return "ay[" + bytes.map { "byte \($0)" }.joined(separator: ", ") + "]"
        case .array(let element, let items):
            return "a\(element)[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let key, let value, let entries):
            return "a{\(key)\(value)}{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .variant(let inner): return "<\(inner)>"
        case .structure(let members): return "(" + members.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

extension DBusValue: Equatable {
    /// Structural equality; doubles compare by bit pattern, descriptors by identity.
    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.byte(let a), .byte(let b)): return a == b
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.int16(let a), .int16(let b)): return a == b
        case (.uint16(let a), .uint16(let b)): return a == b
        case (.int32(let a), .int32(let b)): return a == b
        case (.uint32(let a), .uint32(let b)): return a == b
        case (.int64(let a), .int64(let b)): return a == b
        case (.uint64(let a), .uint64(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a == b
        case (.objectPath(let a), .objectPath(let b)): return a == b
        case (.signature(let a), .signature(let b)): return a == b
        case (.unixFD(let a), .unixFD(let b)): return a === b
        case (.byteArray(let a), .byteArray(let b)): return a == b
        case (.byteArray(let a), .array(let element, let items)), (.array(let element, let items), .byteArray(let a)):
            return element == .byte && a.count == items.count
                && zip(a, items).allSatisfy { if case .byte(let b) = $1 { return $0 == b } else { return false } }
        case (.array(let ea, let a), .array(let eb, let b)): return ea == eb && a == b
        case (.dictionary(let ka, let va, let a), .dictionary(let kb, let vb, let b)):
            return ka == kb && va == vb && a.count == b.count
                && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.variant(let a), .variant(let b)): return a == b
        case (.structure(let a), .structure(let b)): return a == b
        default: return false
        }
    }
}
