import RelayApp
import RelayBlueZ
import RelayCLI
import RelayDBus
import RelayProtocol
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import relay_peripheral

/// relay-peripheral's driver and BlueZ backend end to end against bluezoo: the peripheral on
/// hci0, a central made with the BlueZ client on hci1 (discover, connect, subscribe, write).
final class BluezooPeripheralTests: XCTestCase {
    let peripheralAddress = "00:00:00:11:11:11"
    let centralAddress = BluetoothAddress("00:00:00:22:22:22")!

    func wait(
        _ what: String, _ loop: EventLoop, timeout: Double = 30, file: StaticString = #filePath,
        line: UInt = #line, _ condition: () -> Bool
    ) {
        if !loop.run(until: condition, timeout: timeout) {
            XCTFail("timed out waiting for \(what)", file: file, line: line)
        }
    }

    /// relay-peripheral's driver and BlueZ backend on hci0, started and advertising; its JSON lines.
    final class Peripheral {
        let loop = EventLoop()
        var lines: [String] = []
        var controller: PeripheralDriver!
        var backend: BlueZPeripheralBackend!
    }

    func startPeripheral(on bus: PrivateBus) -> Peripheral {
        let peripheral = Peripheral()
        let loop = peripheral.loop
        let console = Console(
            format: .json, output: { [unowned peripheral] in peripheral.lines.append($0) }, clock: { "T" })
        let controller = PeripheralDriver(settings: .init(), loop: loop, console: console)
        let backend = BlueZPeripheralBackend(
            driver: controller, loop: loop, settings: controller.session.settings, adapter: .name("hci0"))
        controller.performer = PeripheralPerformer(driver: controller, backend: backend)
        backend.start(bus: .address(bus.address))
        peripheral.controller = controller
        peripheral.backend = backend
        wait("powered on", loop) { controller.session.adapter == .poweredOn }
        controller.feed(.command(.start, token: 1))
        wait("advertising", loop) { controller.session.isAdvertising }
        return peripheral
    }

    /// `central` (a started BlueZ client) on hci1 finds the peripheral's advertisement, connects and
    /// resolves its services: the device as first seen.
    func connect(_ central: BlueZClient, _ loop: EventLoop) throws -> DeviceSnapshot {
        wait("central loaded", loop) { central.isAvailable }
        let hci1 = try XCTUnwrap(central.tree.adapter(matching: "hci1"))
        var done = false
        central.startDiscovery(adapter: hci1.id) { _ in done = true }
        wait("discovery", loop) { done }
        var device: DeviceSnapshot?
        wait("our advertisement", loop) {
            device = central.tree.devices(on: hci1.id).first { $0.uuids.contains(RelayProfile.service) }
            return device != nil
        }
        let found = try XCTUnwrap(device)
        done = false
        central.stopDiscovery(adapter: hci1.id) { _ in done = true }
        wait("discovery stopped", loop) { done }
        done = false
        var connectResult: Result<Void, BlueZError>?
        central.connect(device: found.id) { result in
            connectResult = result
            done = true
        }
        wait("connected and resolved", loop) { done && central.tree.device(found.id)?.servicesResolved == true }
        if case .failure(let error)? = connectResult { XCTFail("connect failed: \(error)") }
        return found
    }

    func testCountersAndMessagesBothWaysWithAClientOnTheOtherAdapter() throws {
        let bus = try PrivateBus(bluezooAdapters: [peripheralAddress, centralAddress.description])
        let peripheral = startPeripheral(on: bus)
        let loop = peripheral.loop
        let controller: PeripheralDriver = peripheral.controller
        XCTAssertTrue(peripheral.lines.contains { $0.contains(#""event":"registered""#) })

        // The central side.
        let central = try BlueZClient.connect(to: .address(bus.address), loop: loop)
        var notified: [[UInt8]] = []
        central.onEvent = { event in
            if case .gatt(.valueChanged(let characteristic, let value)) = event,
                characteristic.uuid == RelayProfile.notifyCharacteristic
            {
                notified.append(value)
            }
        }
        central.start()
        let device = try connect(central, loop)
        let path = device.id
        XCTAssertEqual(device.name, "sample")
        var done = false
        let found = central.tree.characteristics(of: path).filter { $0.serviceUUID == RelayProfile.service }
        let write = try XCTUnwrap(found.first { $0.uuid == RelayProfile.writeCharacteristic })
        let notify = try XCTUnwrap(found.first { $0.uuid == RelayProfile.notifyCharacteristic })
        XCTAssertEqual(write.flags, [.read, .writeWithoutResponse])
        XCTAssertEqual(notify.flags, [.read, .notify])
        done = false
        central.startNotify(characteristic: notify.id) { _ in done = true }
        wait("subscribed", loop) { done && controller.session.hasSubscribers }

        // Counters central -> peripheral, shown with the writer's address.
        for value: UInt32 in [0, 1, 2] {
            central.writeValue(Counter(value).encoded, characteristic: write.id, type: .command) { _ in }
        }
        wait("three counters", loop) { peripheral.lines.filter { $0.contains(#""event":"counter""#) }.count == 3 }
        XCTAssertEqual(
            peripheral.lines.filter { $0.contains(#""event":"counter""#) },
            (0...2).map { #"{"event":"counter","time":"T","from":"\#(centralAddress)","value":\#($0)}"# + "\n" })

        // Counters peripheral -> central.
        for token in 2...4 { controller.feed(.command(.notify(value: nil), token: CommandToken(token))) }
        wait("three notifications", loop) { notified.count >= 3 }
        XCTAssertEqual(Array(notified.prefix(3)), (0...2).map { Counter(UInt32($0)).encoded })

        // Reads: the last value written, the last counter notified.
        var reads: [[UInt8]] = []
        central.readValue(characteristic: write.id) { if case .success(let value) = $0 { reads.append(value) } }
        central.readValue(characteristic: notify.id) { if case .success(let value) = $0 { reads.append(value) } }
        wait("reads", loop) { reads.count == 2 }
        XCTAssertEqual(reads, [Counter(2).encoded, Counter(2).encoded])

        // A framed message each way.
        let text = String(repeating: "relay ", count: 200)
        let mtu = controller.session.sendingMTU
        for frame in MessageFrames(message: Message(text: text), id: MessageID(0), mtu: mtu, carrier: .write) {
            central.writeValue(frame, characteristic: write.id, type: .command) { _ in }
        }
        wait("message", loop) { peripheral.lines.contains { $0.contains(#""event":"message""#) } }
        XCTAssertTrue(
            peripheral.lines.contains { $0.contains(#""event":"message""#) && $0.contains(#""text":"\#(text)""#) })
        notified.removeAll()
        let binary = Message(binary: (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        controller.feed(.command(.send(binary), token: 5))
        var reassembler = Reassembler()
        var arrived: [Message] = []
        var fed = 0
        wait("the message on the central", loop) {
            while fed < notified.count {
                for case .message(let received) in reassembler.receive(notified[fed]) {
                    arrived.append(received.message)
                }
                fed += 1
            }
            return !arrived.isEmpty
        }
        XCTAssertEqual(arrived, [binary])
        XCTAssertTrue(peripheral.lines.contains { $0.contains(#""event":"sent""#) })

        // The central leaves: the peripheral frees it.
        done = false
        central.disconnect(device: path) { _ in done = true }
        wait("disconnected", loop) { done && controller.session.centrals.isEmpty }
        XCTAssertTrue(peripheral.lines.contains { $0.contains(#""event":"disconnected""#) })
    }

    /// bluetoothd removes other adapters' devices too (a stranger's temporary device 30 s after it
    /// left): one with the address of relay-peripheral's central is not that central leaving.
    func testAnotherAdaptersDeviceOfTheCentralsAddressGoingIsNotTheCentralLeaving() throws {
        let bus = try PrivateBus(bluezooAdapters: [peripheralAddress, centralAddress.description, "00:00:00:33:33:33"])
        let peripheral = startPeripheral(on: bus)
        let loop = peripheral.loop
        let controller: PeripheralDriver = peripheral.controller

        // The central on hci1 connects and subscribes.
        let central = try BlueZClient.connect(to: .address(bus.address), loop: loop)
        central.start()
        let path = try connect(central, loop).id
        let hci1 = try XCTUnwrap(central.tree.adapter(matching: "hci1"))
        let hci2 = try XCTUnwrap(central.tree.adapter(matching: "hci2"))
        var done = false
        let notify = try XCTUnwrap(
            central.tree.characteristics(of: path).first { $0.uuid == RelayProfile.notifyCharacteristic })
        done = false
        central.startNotify(characteristic: notify.id) { _ in done = true }
        wait("subscribed", loop) { done && controller.session.hasSubscribers }

        // hci2 finds hci1 (made discoverable): a device of the central's address on hci2, removed.
        done = false
        central.setProperty(try ObjectPath(hci1.id.description), BlueZInterface.adapter, "Discoverable", .boolean(true))
        {
            _ in done = true
        }
        wait("hci1 discoverable", loop) { done }
        done = false
        central.startDiscovery(adapter: hci2.id) { _ in done = true }
        wait("discovery on hci2", loop) { done }
        var stranger: DeviceSnapshot?
        wait("hci2 sees the central's address", loop) {
            stranger = central.tree.devices(on: hci2.id).first { $0.address == self.centralAddress }
            return stranger != nil
        }
        done = false
        central.stopDiscovery(adapter: hci2.id) { _ in done = true }
        wait("discovery on hci2 stopped", loop) { done }
        let strangerPath = try ObjectPath(try XCTUnwrap(stranger?.id.description))
        done = false
        central.call(
            try ObjectPath(hci2.id.description), BlueZInterface.adapter, "RemoveDevice", [.objectPath(strangerPath)]
        ) {
            _ in done = true
        }
        wait("removed", loop) {
            done && !central.tree.devices(on: hci2.id).contains { $0.address == self.centralAddress }
        }
        _ = loop.run(until: { false }, timeout: 0.5)
        XCTAssertFalse(peripheral.lines.contains { $0.contains(#""event":"disconnected""#) }, peripheral.lines.joined())
        XCTAssertEqual(controller.session.centrals.count, 1)
        XCTAssertTrue(controller.session.hasSubscribers)
    }
}
