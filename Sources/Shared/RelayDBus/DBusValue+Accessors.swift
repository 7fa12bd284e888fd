/// Optional accessors: each returns the payload when the value has exactly that type, else `nil`.
/// Variants are not looked through (use `asVariant` or `unwrapped`), except where noted.
extension DBusValue {
    public var asByte: UInt8? {
        if case .byte(let v) = self { return v }
        return nil
    }
    public var asBool: Bool? {
        if case .boolean(let v) = self { return v }
        return nil
    }
    public var asInt16: Int16? {
        if case .int16(let v) = self { return v }
        return nil
    }
    public var asUInt16: UInt16? {
        if case .uint16(let v) = self { return v }
        return nil
    }
    public var asInt32: Int32? {
        if case .int32(let v) = self { return v }
        return nil
    }
    public var asUInt32: UInt32? {
        if case .uint32(let v) = self { return v }
        return nil
    }
    public var asInt64: Int64? {
        if case .int64(let v) = self { return v }
        return nil
    }
    public var asUInt64: UInt64? {
        if case .uint64(let v) = self { return v }
        return nil
    }
    public var asDouble: Double? {
        if case .double(let v) = self { return v }
        return nil
    }
    public var asString: String? {
        if case .string(let v) = self { return v }
        return nil
    }
    public var asObjectPath: ObjectPath? {
        if case .objectPath(let v) = self { return v }
        return nil
    }
    public var asSignature: DBusSignature? {
        if case .signature(let v) = self { return v }
        return nil
    }
    public var asFileDescriptor: FileDescriptor? {
        if case .unixFD(let v) = self { return v }
        return nil
    }
    /// The inner value of a variant.
    public var asVariant: DBusValue? {
        if case .variant(let v) = self { return v }
        return nil
    }
    /// The members of a struct.
    public var asStructure: [DBusValue]? {
        if case .structure(let v) = self { return v }
        return nil
    }
    /// The elements of an array of any element type (an `ay` buffer as `.byte` values).
    public var asArray: [DBusValue]? {
        switch self {
        case .array(_, let items): return items
        case .byteArray(let bytes): return bytes.map { .byte($0) }
        default: return nil
        }
    }

    /// This value with any number of variant wrappers removed.
    public var unwrapped: DBusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }

    /// The bytes of an `ay` (either spelling; the buffer of a `byteArray` as it is).
    public var asBytes: [UInt8]? {
        if case .byteArray(let bytes) = self { return bytes }
        guard case .array(let element, let items) = self, element == .byte else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.count)
        for item in items {
            guard case .byte(let b) = item else { return nil }
            bytes.append(b)
        }
        return bytes
    }

    /// The strings of an `as`.
    public var asStrings: [String]? {
        guard case .array(let element, let items) = self, element == .string else { return nil }
        return items.compactMap(\.asString)
    }

    /// The paths of an `ao`.
    public var asObjectPaths: [ObjectPath]? {
        guard case .array(let element, let items) = self, element == .objectPath else { return nil }
        return items.compactMap(\.asObjectPath)
    }

    /// The entries of a dictionary of any key and value type, in wire order.
    public var asDictionaryEntries: [(key: DBusValue, value: DBusValue)]? {
        if case .dictionary(_, _, let entries) = self { return entries }
        return nil
    }

    /// An `a{s?}` as a Swift dictionary; variant values are unwrapped (`a{sv}` gives the inner values).
    /// Later duplicate keys win.
    public var asDictionary: [String: DBusValue]? {
        guard case .dictionary(let key, _, let entries) = self, key == .string else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let name = entry.key.asString else { return nil }
            result[name] = entry.value.unwrapped
        }
        return result
    }

    /// An `a{q?}` (e.g. `ManufacturerData` `a{qv}`) with variant values unwrapped.
    public var asUInt16KeyedDictionary: [UInt16: DBusValue]? {
        guard case .dictionary(let key, _, let entries) = self, key == .uint16 else { return nil }
        var result: [UInt16: DBusValue] = [:]
        for entry in entries {
            guard let k = entry.key.asUInt16 else { return nil }
            result[k] = entry.value.unwrapped
        }
        return result
    }

    /// An `a{y?}` (e.g. advertising `Data` `a{yv}`) with variant values unwrapped.
    public var asByteKeyedDictionary: [UInt8: DBusValue]? {
        guard case .dictionary(let key, _, let entries) = self, key == .byte else { return nil }
        var result: [UInt8: DBusValue] = [:]
        for entry in entries {
            guard let k = entry.key.asByte else { return nil }
            result[k] = entry.value.unwrapped
        }
        return result
    }

    /// An `a{sa{sv}}` (interfaces and their properties, as in `InterfacesAdded`).
    public var asInterfaceMap: [String: [String: DBusValue]]? {
        guard case .dictionary(let key, _, let entries) = self, key == .string else { return nil }
        var result: [String: [String: DBusValue]] = [:]
        for entry in entries {
            guard let name = entry.key.asString, let properties = entry.value.asDictionary else { return nil }
            result[name] = properties
        }
        return result
    }

    /// An `a{oa{sa{sv}}}` (the `GetManagedObjects` reply).
    public var asManagedObjects: [ObjectPath: [String: [String: DBusValue]]]? {
        guard case .dictionary(let key, _, let entries) = self, key == .objectPath else { return nil }
        var result: [ObjectPath: [String: [String: DBusValue]]] = [:]
        for entry in entries {
            guard let path = entry.key.asObjectPath, let interfaces = entry.value.asInterfaceMap else { return nil }
            result[path] = interfaces
        }
        return result
    }
}

/// Convenience constructors for common shapes.
extension DBusValue {
    /// An `ay` (a `byteArray`: the buffer is kept as it is).
    public static func bytes(_ bytes: [UInt8]) -> DBusValue {
        .byteArray(bytes)
    }

    /// An `ay` from any byte sequence.
    public static func bytes(_ bytes: some Sequence<UInt8>) -> DBusValue {
        .byteArray(Array(bytes))
    }

    /// An `as`.
    public static func strings(_ strings: [String]) -> DBusValue {
        .array(element: .string, strings.map { .string($0) })
    }

    /// An `ao`.
    public static func objectPaths(_ paths: [ObjectPath]) -> DBusValue {
        .array(element: .objectPath, paths.map { .objectPath($0) })
    }

    /// An `a{sv}`: every value is wrapped in a variant; entries are sorted by key.
    public static func stringDict(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            dictionary.sorted { $0.key < $1.key }.map { (key: .string($0.key), value: .variant($0.value)) })
    }

    /// An `a{qv}`: every value is wrapped in a variant; entries are sorted by key.
    public static func uint16Dict(_ dictionary: [UInt16: DBusValue]) -> DBusValue {
        .dictionary(
            key: .uint16, value: .variant,
            dictionary.sorted { $0.key < $1.key }.map { (key: .uint16($0.key), value: .variant($0.value)) })
    }

    /// An `a{yv}`: every value is wrapped in a variant; entries are sorted by key.
    public static func byteDict(_ dictionary: [UInt8: DBusValue]) -> DBusValue {
        .dictionary(
            key: .byte, value: .variant,
            dictionary.sorted { $0.key < $1.key }.map { (key: .byte($0.key), value: .variant($0.value)) })
    }
}

/// Typed access to message arguments, throwing `DBusError.wrongShape` instead of trapping.
extension Array where Element == DBusValue {
    /// The concatenated signature of the arguments.
    public var signature: DBusSignature {
        DBusSignature(unchecked: map(\.signature.rawValue).joined())
    }

    /// Argument `index` converted with `accessor` (e.g. `\.asString`), or `wrongShape`.
    public func argument<T>(_ index: Int, _ accessor: (DBusValue) -> T?) throws(DBusError) -> T {
        guard index >= 0, index < count else {
            throw .wrongShape("expected an argument #\(index), got signature '\(signature)'")
        }
        guard let value = accessor(self[index]) else {
            throw .wrongShape("argument #\(index) has type '\(self[index].signature)', not the expected one")
        }
        return value
    }

    /// Throws `wrongShape` unless the arguments have exactly `expected` as signature.
    public func expectSignature(_ expected: DBusSignature) throws(DBusError) {
        guard signature == expected else {
            throw .wrongShape("expected signature '\(expected)', got '\(signature)'")
        }
    }
}
