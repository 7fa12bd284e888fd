import RelayDBus
import RelayProtocol
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import RelayBlueZ

/// Shared set-up of the bluezoo tests: a private bus with bluezoo (two linked adapters,
/// hci0 00:00:00:11:11:11 serves, hci1 00:00:00:22:22:22 scans), one event loop, helpers.
class BluezooTestCase: XCTestCase {
    let serviceUUID = BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0")!
    let writeUUID = BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480")!
    let notifyUUID = BluetoothUUID("DFB13451-1740-4F8A-B0F0-7C20D79E8BDF")!
    let peripheralAddress = BluetoothAddress("00:00:00:11:11:11")!
    let centralAddress = BluetoothAddress("00:00:00:22:22:22")!

    var bus: PrivateBus!
    var loop: EventLoop!

    override func setUpWithError() throws {
        bus = try PrivateBus()
        loop = EventLoop()
        try bus.startBluezoo()
    }

    override func tearDown() {
        bus = nil
        loop = nil
    }

    /// Runs the loop until `condition` holds; fails (and returns false) after `timeout` seconds.
    @discardableResult
    func wait(
        _ what: String, timeout: Double = 15, file: StaticString = #filePath, line: UInt = #line,
        _ condition: () -> Bool
    ) -> Bool {
        let met = loop.run(until: condition, timeout: timeout)
        if !met { XCTFail("timed out waiting for \(what)", file: file, line: line) }
        return met
    }

    /// Runs a call and waits for its completion.
    func complete<T>(
        _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ start: (@escaping (Result<T, BlueZError>) -> Void) -> Void
    ) throws -> T {
        var outcome: Result<T, BlueZError>?
        start { outcome = $0 }
        wait(what, file: file, line: line) { outcome != nil }
        switch outcome {
        case .success(let value): return value
        case .failure(let error): throw error
        case nil: throw BlueZError(.noReply, "\(what) did not complete")
        }
    }

    func startedClient(
        adapters: Int = 2, _ events: @escaping (BlueZEvent) -> Void = { _ in }
    ) throws -> BlueZClient {
        let client = BlueZClient(connection: try bus.connect(loop))
        client.onEvent = events
        client.start()
        if !wait(
            "bluezoo adapters powered",
            { client.isAvailable && client.tree.adapters.filter(\.powered).count == adapters })
        {
            print(
                "owner \(String(describing: client.owner)) loaded \(client.isLoaded) adapters \(client.tree.adapters)")
        }
        return client
    }

    func relayApplication(_ client: BlueZClient, acquire: Bool = false, keepsWrites: Bool = true) -> GattApplication {
        GattApplication(
            client: client,
            services: [
                LocalService(
                    uuid: serviceUUID,
                    characteristics: [
                        LocalCharacteristic(
                            uuid: writeUUID, flags: [.read, .writeWithoutResponse], keepsWrites: keepsWrites,
                            supportsAcquireWrite: acquire),
                        LocalCharacteristic(
                            uuid: notifyUUID, flags: [.read, .notify], value: [0, 0, 0, 0],
                            supportsAcquireNotify: acquire),
                    ])
            ])
    }

    /// Adds a third adapter (hci2, `00:00:00:33:33:33`) through bluezoo's own manager interface,
    /// and waits until `client` sees three powered.
    func addThirdAdapter(seenBy client: BlueZClient) throws {
        let control = try bus.connect(loop)
        var added: Result<[DBusValue], DBusError>?
        control.call(
            destination: "org.bluez", path: "/org/bluezoo", interface: "org.bluezoo.Manager1",
            method: "AddAdapter", arguments: [.byte(2), .string("00:00:00:33:33:33")]
        ) { added = $0 }
        wait("third adapter") { added != nil }
        _ = try XCTUnwrap(added).get()
        wait("third adapter powered") { client.tree.adapters.filter(\.powered).count == 3 }
    }

    /// Discovers the peripheral from hci1 (service filter), connects and waits for resolution.
    func discoverAndConnect(
        _ central: BlueZClient, from adapterName: String = "hci1", devices: () -> [DeviceSnapshot]
    ) throws -> DeviceSnapshot {
        let adapter = try XCTUnwrap(central.tree.adapter(matching: adapterName))
        try complete("SetDiscoveryFilter") {
            central.setDiscoveryFilter(
                DiscoveryFilter(uuids: [serviceUUID], transport: .le, duplicateData: false),
                adapter: adapter.id, completion: $0)
        }
        try complete("StartDiscovery") { central.startDiscovery(adapter: adapter.id, completion: $0) }
        wait("discovering") { central.tree.adapter(at: adapter.path)?.discovering == true }
        if !wait(
            "advertisement of 'sample'",
            { devices().contains { $0.name == "sample" && $0.uuids.contains(serviceUUID) } })
        {
            print("devices seen: \(devices())")
        }
        let found = try XCTUnwrap(devices().first { $0.name == "sample" })
        XCTAssertEqual(found.address, peripheralAddress)
        XCTAssertEqual(found.adapter, adapter.path)
        try complete("StopDiscovery") { central.stopDiscovery(adapter: adapter.id, completion: $0) }
        try complete("Connect") { central.connect(device: found.path, completion: $0) }
        wait("services resolved") { central.tree.device(at: found.path)?.servicesResolved == true }
        return try XCTUnwrap(central.tree.device(at: found.path))
    }
}
