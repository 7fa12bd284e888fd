/// The D-Bus wire format of an argument list, without any bus: what a connection sends and
/// receives, through the same libdbus marshalling. For benchmarks, tests and tools.
public enum DBusWire {
    /// The wire bytes of a method call `member` on `path` carrying `arguments` (validated first).
    public static func marshal(
        _ arguments: [DBusValue], path: ObjectPath = "/", member: String = "Call"
    ) throws(DBusError) -> [UInt8] {
        let message = try Message.methodCall(destination: nil, path: path, interface: nil, member: member)
        try message.append(arguments)
        return try message.marshal()
    }

    /// The arguments of the message in `bytes`; anything libdbus rejects gives `malformedMessage`.
    public static func unmarshal(_ bytes: [UInt8]) throws(DBusError) -> [DBusValue] {
        try Message.demarshal(bytes).arguments()
    }
}
