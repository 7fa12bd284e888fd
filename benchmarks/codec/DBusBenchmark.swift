import RelayDBus

/// `relay-codec-bench --dbus`: the D-Bus marshalling of relay's hot paths, without a bus
/// (`DBusWire`, the same libdbus code a connection uses), per message:
/// - receive: a `WriteValue(aya{sv})` call as bluetoothd sends it (value + `device`, `link`,
///   `mtu`, `type` options) parsed into `[DBusValue]` and the value taken out with `asBytes`;
/// - send: a `PropertiesChanged(sa{sv}as)` signal carrying `Value` built from `[UInt8]`
///   with `.bytes(_:)` and marshalled.
func measureDBus(sizes: [Int] = [4, 510, 64 << 10]) -> [(label: String, microseconds: Double)] {
    let options: DBusValue = .dictionary(
        key: .string, value: .variant,
        [
            (key: .string("device"), value: .variant(.objectPath("/org/bluez/hci0/dev_00_AA_01_01_00_01"))),
            (key: .string("link"), value: .variant(.string("LE"))),
            (key: .string("mtu"), value: .variant(.uint16(517))),
            (key: .string("type"), value: .variant(.string("command"))),
        ])
    var bodies: [() -> Void] = []
    var labels: [String] = []
    for size in sizes {
        let frame = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let call = try! DBusWire.marshal([.bytes(frame), options], path: "/app/service0/char0", member: "WriteValue")
        labels.append("receive WriteValue(aya{sv}), \(size) B")
        bodies.append {
            let arguments = try! DBusWire.unmarshal(call)
            sink &+= UInt64(arguments[0].asBytes!.count)
        }
        labels.append("send PropertiesChanged(sa{sv}as), \(size) B")
        bodies.append {
            let wire = try! DBusWire.marshal(
                [.string("org.bluez.GattCharacteristic1"), .stringDict(["Value": .bytes(frame)]), .strings([])],
                path: "/app/service0/char1", member: "PropertiesChanged")
            sink &+= UInt64(wire.count)
        }
    }
    let seconds = medianSecondsPerRun(repetitions: 11, minimumSeconds: 0.02, bodies)
    return zip(labels, seconds).map { ($0, $1 * 1e6) }
}
