import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import relay_central

/// The central's driver end to end against bluezoo: a relay GATT server and advertisement on
/// hci0 (built with the BlueZ model), `CentralDriver` with its BlueZ backend on hci1.
final class BluezooCentralTests: XCTestCase {
    let peripheralAddress = "00:00:00:11:11:11"
    let centralAddress = "00:00:00:22:22:22"

    func wait(
        _ what: String, _ loop: EventLoop, timeout: Double = 20, file: StaticString = #filePath,
        line: UInt = #line, _ condition: () -> Bool
    ) {
        if !loop.run(until: condition, timeout: timeout) {
            XCTFail("timed out waiting for \(what)", file: file, line: line)
        }
    }

    func runExchange(acquire: Bool, notifySocket: Bool = false, askForNotifySocket: Bool = false) throws {
        let bus = try PrivateBus(bluezooAdapters: [peripheralAddress, centralAddress])
        let loop = EventLoop()

        // The peripheral side, made with the BlueZ model.
        let server = try BlueZClient.connect(to: .address(bus.address), loop: loop)
        server.start()
        wait("adapters", loop, timeout: 60) { server.isAvailable && server.tree.adapters.filter(\.powered).count == 2 }
        if !server.isAvailable {
            print(
                "owner \(String(describing: server.owner)) loaded \(server.isLoaded) adapters \(server.tree.adapters)")
        }
        let hci0 = try XCTUnwrap(server.tree.adapter(matching: "hci0"))
        let application = GattApplication(
            client: server,
            services: [
                LocalService(
                    uuid: RelayProfile.service,
                    characteristics: [
                        LocalCharacteristic(
                            uuid: RelayProfile.writeCharacteristic, flags: [.read, .writeWithoutResponse],
                            supportsAcquireWrite: acquire),
                        LocalCharacteristic(
                            uuid: RelayProfile.notifyCharacteristic, flags: [.read, .notify], value: [0, 0, 0, 0],
                            supportsAcquireNotify: notifySocket),
                    ])
            ])
        var written: [[UInt8]] = []
        application.onEvent = { if case .written(_, let value, _) = $0 { written.append(value) } }
        var registered = 0
        application.register(adapter: hci0.id) { if case .success = $0 { registered += 1 } }
        let advertisement = LEAdvertisement(
            client: server, data: AdvertisementData(serviceUUIDs: [RelayProfile.service], localName: "sample"))
        advertisement.register(adapter: hci0.id) { if case .success = $0 { registered += 1 } }
        wait("registrations", loop) { registered == 2 }

        // The central: the real driver, JSON events captured.
        var lines: [String] = []
        let console = Console(format: .json, output: { lines.append($0) })
        var settings = CentralSettings()
        settings.notifyPath = notifySocket || askForNotifySocket ? .socket : .signal
        let driver = CentralDriver(settings: settings, loop: loop, console: console)
        let backend = BlueZCentralBackend(
            driver: driver, loop: loop, adapter: .name("hci1"), bus: .address(bus.address))
        driver.performer = CentralPerformer(driver: driver, backend: backend)
        backend.start()
        wait("powered on", loop) { driver.session.adapter == .poweredOn }
        XCTAssertEqual(driver.session.adapterInfo?.name, "hci1")

        driver.feed(.command(.scan, token: 100))
        wait("discovered", loop) { !driver.session.scanning.candidates.isEmpty }
        XCTAssertEqual(driver.session.scanning.candidates.first?.address.description, peripheralAddress)
        XCTAssertTrue(lines.contains { $0.contains(#""event":"discovered""#) && $0.contains(#""index":0"#) })

        driver.feed(.command(.connect(.index(0)), token: 101))
        wait("ready", loop) { driver.session.readyLink != nil }
        XCTAssertEqual(driver.session.scanning.state, .idle, "scanning stopped once connected")
        XCTAssertEqual(driver.session.readyLink?.path, acquire ? .socket : .writeValue)
        XCTAssertEqual(driver.session.readyLink?.notifyVia, notifySocket ? .socket : .signal)
        XCTAssertTrue(
            lines.contains {
                $0.contains(#""event":"ready""#)
                    && $0.contains(notifySocket ? #""notify":"socket""# : #""notify":"signal""#)
            })
        wait("subscribed on the server", loop) { application.isNotifying(RelayProfile.notifyCharacteristic) }

        for token in 102...104 { driver.feed(.command(.write(value: nil), token: CommandToken(token))) }
        wait("three counters written", loop) { written.count == 3 }
        XCTAssertEqual(written, [[0, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0]])

        for value: UInt32 in [0, 1, 2] {
            XCTAssertEqual(application.notify(Counter(value).encoded, on: RelayProfile.notifyCharacteristic), .sent)
        }
        wait("three counters received", loop) { driver.session.receiving.lastReceived == Counter(2) }
        let counters = lines.filter { $0.contains(#""event":"counter""#) }
        XCTAssertEqual(counters.count, 3)

        // A framed message each way.
        written.removeAll()
        let text = String(repeating: "relay ", count: 300)
        driver.feed(.command(.send(Message(text: text)), token: 105))
        wait("sent", loop) { lines.contains { $0.contains(#""event":"sent""#) } }
        // Through the socket, "sent" means queued: the server may still be receiving.
        var reassembler = Reassembler()
        var arrived: [Message] = []
        var fed = 0
        wait("the message on the server", loop) {
            while fed < written.count {
                for case .message(let received) in reassembler.receive(written[fed]) {
                    arrived.append(received.message)
                }
                fed += 1
            }
            return !arrived.isEmpty
        }
        XCTAssertEqual(arrived, [Message(text: text)])

        var chunker = Chunker(carrier: .notification, mtu: driver.session.readyLink?.mtu ?? .default)
        let binary = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for value in chunker.frames(for: Message(binary: binary)) {
            XCTAssertEqual(application.notify(value, on: RelayProfile.notifyCharacteristic), .sent)
        }
        wait("message", loop) { driver.session.receiving.messagesReceived == 1 }
        XCTAssertTrue(lines.contains { $0.contains(#""event":"message""#) && $0.contains(SHA256.hash(binary).hex) })

        driver.feed(.command(.disconnect, token: 106))
        wait("disconnected", loop) { driver.session.link == .idle }
        XCTAssertTrue(lines.contains { $0.contains(#""event":"disconnected""#) && $0.contains("on request") })
    }

    func testArticleFlowOverWriteValue() throws { try runExchange(acquire: false) }

    func testArticleFlowOverAcquireWrite() throws { try runExchange(acquire: true) }

    /// `--notify-path socket`: notifications through the `AcquireNotify` socket, read on its own thread.
    func testArticleFlowOverBothSockets() throws { try runExchange(acquire: true, notifySocket: true) }

    /// `--notify-path socket` against a server without `AcquireNotify`: `StartNotify` instead.
    func testNotifySocketFallsBackToStartNotify() throws {
        try runExchange(acquire: true, notifySocket: false, askForNotifySocket: true)
    }
}
