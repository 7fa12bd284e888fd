import Foundation
import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayRuntime
import RelayTestSupport
import XCTest

@testable import RelayApp

/// `--check` against bluezoo on a private bus, with the system's files (rfkill, dpkg) faked in a
/// folder: which checks run for each role, what a failure says and how to fix it, and that
/// nothing registered is left behind.
final class SetupCheckTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "relay-check-\(UUID().uuidString)/"
        try write("sys/class/rfkill/rfkill0/name", "hci0\n")
        try write("sys/class/rfkill/rfkill0/soft", "0\n")
        try write("sys/class/rfkill/rfkill0/hard", "0\n")
        try write(
            "var/lib/dpkg/status",
            "Package: bluez-obexd\nStatus: install ok installed\nVersion: 5.66-1\n\n"
                + "Package: bluez\nStatus: install ok installed\nPriority: optional\nVersion: 5.66-1+deb12u2\n")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func write(_ path: String, _ text: String) throws {
        let url = URL(fileURLWithPath: root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Runs the check to its end; the findings and the summary.
    private func check(
        _ role: SetupCheck.Role, on bus: PrivateBus, adapter: String? = nil,
        lane: Result<LanePSM, LaneSocketError> = .success(LanePSM(0x80)!)
    ) throws -> (findings: [CheckFinding], summary: CheckSummary) {
        let loop = EventLoop()
        var reported: [CheckFinding] = []
        let choice = try adapter.map { try AdapterChoice(parsing: $0) }
        let check = SetupCheck(
            role: role, adapter: choice, bus: .address(bus.address), loop: loop, facts: SystemFacts(root: root),
            laneProbe: { _ in lane }, report: { reported.append($0) })
        var summary: CheckSummary?
        check.run { summary = $0 }
        XCTAssertTrue(loop.run(until: { summary != nil }, timeout: 40), "the check ended")
        XCTAssertEqual(reported, check.findings)
        return (reported, try XCTUnwrap(summary))
    }

    private func statuses(_ findings: [CheckFinding]) -> [String] {
        findings.map { "\($0.check.rawValue) \($0.status.rawValue)" }
    }

    /// The adapter as bluetoothd shows it now, read by a client of its own.
    private func adapter(_ name: String, on bus: PrivateBus) throws -> AdapterSnapshot {
        let loop = EventLoop()
        let client = BlueZClient(connection: try bus.connect(loop))
        client.start()
        XCTAssertTrue(loop.run(until: { client.isAvailable }, timeout: 15))
        return try XCTUnwrap(client.tree.adapters.first { $0.name == name })
    }

    func testAHealthyAdapterPassesEveryCheckOfEachRoleAndKeepsNothing() throws {
        let bus = try PrivateBus(bluezooAdapters: PrivateBus.defaultAdapters)
        let before = try adapter("hci0", on: bus)
        let peripheral = try check(.peripheral(secure: true), on: bus)
        XCTAssertEqual(
            statuses(peripheral.findings).filter { !$0.hasPrefix("features") },
            [
                "bus ok", "bluetoothd ok", "bluez ok", "adapter ok", "rfkill ok", "powered ok", "le ok",
                "advertising ok", "room \(before.advertising?.readsIntervals == true ? "ok" : "warning")",
                "gatt-application ok", "agent ok", "lane ok",
            ])
        XCTAssertEqual(peripheral.findings.dropLast().last?.check, .features)
        XCTAssertEqual(peripheral.findings.last?.detail.contains("PSM 0x0080"), true)
        XCTAssertTrue(peripheral.summary.ready)
        XCTAssertTrue(peripheral.findings.allSatisfy { $0.status == .ok || $0.fix != nil }, "a fix on every warning")
        XCTAssertEqual(peripheral.findings[2].detail, "BlueZ 5.66-1+deb12u2 (the bluez package)")
        let central = try check(.central, on: bus, adapter: "hci1")
        XCTAssertEqual(
            statuses(central.findings).filter { !$0.hasPrefix("features") },
            [
                "bus ok", "bluetoothd ok", "bluez ok", "adapter ok", "rfkill ok", "powered ok", "le ok", "discovery ok",
                "lane ok",
            ])
        XCTAssertEqual(central.findings[3].detail.prefix(5), "hci1 ")
        // Nothing of the check is left with bluetoothd.
        let after = try adapter("hci0", on: bus)
        XCTAssertEqual(after.advertising?.activeInstances, before.advertising?.activeInstances)
        XCTAssertEqual(after.uuids, before.uuids, "no test service left registered")
    }

    /// bluetoothd answers `InProgress` while the kernel is busy: to StartDiscovery when it refused
    /// to start one, to StopDiscovery when it was still starting it (both seen in the test bed);
    /// and `Failed: No discovery started` to StopDiscovery when the kernel ended the discovery
    /// after the start's answer (seen once). The discovery check asks again a second later, three
    /// times at most.
    func testDiscoveryAnsweredInProgressIsAskedForAgainThreeTimesAtMost() throws {
        SetupCheck.discoveryRetryDelay = 0.1
        defer { SetupCheck.discoveryRetryDelay = 1 }
        for (busy, passes) in [
            ("start=1", true), ("stop=2", true), ("start=1,stop=1", true), ("stop=3", false), ("lost=1", true),
            ("lost=2", true), ("lost=3", false),
        ] {
            let bus = try PrivateBus()
            try bus.startBluezoo(busy: busy)
            let central = try check(.central, on: bus, adapter: "hci1")
            let discovery = try XCTUnwrap(central.findings.first { $0.check == .discovery }, busy)
            XCTAssertEqual(discovery.status, passes ? .ok : .failed, "\(busy): \(discovery.detail)")
            XCTAssertEqual(central.summary.ready, passes, busy)
            if !passes {
                let answer = busy.hasPrefix("lost") ? "No discovery started" : "InProgress"
                XCTAssertTrue(discovery.detail.contains(answer), discovery.detail)
            }
        }
    }

    /// A presenter's laptop: whether bluetoothd reads the advertising interval (its experimental
    /// properties are shown), and the `[GATT] Client = false` advice where bluetoothd has it.
    func testTheRoomCheckSaysWhetherTheIntervalIsHonouredAndGivesTheClientAdvice() throws {
        let bus = try PrivateBus(bluezooAdapters: PrivateBus.defaultAdapters)
        let interval = AdvertisingInterval(milliseconds: 50)!
        let readsIntervals = try XCTUnwrap(try adapter("hci0", on: bus).advertising?.readsIntervals)
        var room = try XCTUnwrap(
            try check(.peripheral(secure: false, interval: interval), on: bus).findings.first { $0.check == .room })
        if readsIntervals {
            XCTAssertEqual(room.status, .ok)
            XCTAssertTrue(room.detail.hasPrefix("bluetoothd advertises every 50 ms as asked; "), room.detail)
        } else {
            XCTAssertEqual(room.status, .warning)
            XCTAssertTrue(room.detail.contains("every 1.28 s"), room.detail)
            XCTAssertTrue(room.fix?.contains("Experimental = true") == true)
        }
        XCTAssertFalse(room.detail.contains("Client = false"), "BlueZ 5.66 has no such setting: \(room.detail)")
        let extended = !(try XCTUnwrap(try adapter("hci0", on: bus).advertising?.supportedSecondaryChannels).isEmpty)
        XCTAssertTrue(
            room.detail.contains(extended ? "it advertises extended: " : "it advertises legacy: "), room.detail)
        XCTAssertTrue(room.detail.contains("how many centrals it holds at once"), room.detail)
        XCTAssertTrue(SetupCheck.advertisingKind(extended: true).contains("relay-peripheral says so"))
        XCTAssertTrue(SetupCheck.advertisingKind(extended: false).contains("try two centrals before the class"))

        try write("var/lib/dpkg/status", "Package: bluez\nStatus: install ok installed\nVersion: 5.82-1.1\n")
        try write("etc/bluetooth/main.conf", "[General]\n#Client = false\n[GATT]\n# Client = false\nCache = yes\n")
        room = try XCTUnwrap(try check(.peripheral(secure: false), on: bus).findings.first { $0.check == .room })
        XCTAssertTrue(room.detail.contains("Client = false under [GATT] in /etc/bluetooth/main.conf"), room.detail)
        try write("etc/bluetooth/main.conf", "[General]\n[GATT]\nCache = yes\n  Client =  False \n")
        room = try XCTUnwrap(try check(.peripheral(secure: false), on: bus).findings.first { $0.check == .room })
        XCTAssertFalse(room.detail.contains("Client = false"), "already set: \(room.detail)")

        let experimental = AdvertisingManagerSnapshot(properties: [
            "SupportedInstances": .byte(4), "SupportedCapabilities": .stringDict(["MaxAdvLen": .byte(31)]),
        ])
        XCTAssertTrue(experimental.readsIntervals)
        XCTAssertFalse(AdvertisingManagerSnapshot(properties: ["SupportedInstances": .byte(4)]).readsIntervals)
    }

    func testABlockedAdapterThatIsOffFailsWithEachFixAndStopsThere() throws {
        try write("sys/class/rfkill/rfkill0/soft", "1\n")
        let bus = try PrivateBus(bluezooAdapters: PrivateBus.defaultAdapters)
        let loop = EventLoop()
        let client = BlueZClient(connection: try bus.connect(loop))
        client.start()
        XCTAssertTrue(loop.run(until: { client.isAvailable }, timeout: 15))
        var off = false
        client.setPowered(false, adapter: try XCTUnwrap(client.tree.adapters.first { $0.name == "hci0" }).id) { _ in
            off = true
        }
        XCTAssertTrue(loop.run(until: { off }, timeout: 15))
        let result = try check(.peripheral(secure: false), on: bus, adapter: "hci0")
        XCTAssertEqual(
            statuses(result.findings),
            ["bus ok", "bluetoothd ok", "bluez ok", "adapter ok", "rfkill failed", "powered failed", "le ok"])
        XCTAssertEqual(result.findings[4].fix, "rfkill unblock bluetooth")
        XCTAssertEqual(result.findings[5].fix, "rfkill unblock bluetooth, then bluetoothctl power on")
        XCTAssertFalse(result.summary.ready)
        XCTAssertEqual(result.summary.failed, 2)
    }

    func testAKernelWithoutL2CAPSocketsIsAWarningWithItsFix() throws {
        let bus = try PrivateBus(bluezooAdapters: PrivateBus.defaultAdapters)
        let result = try check(
            .central, on: bus, adapter: "hci1", lane: .failure(LaneSocketError("socket", code: EAFNOSUPPORT)))
        let lane = try XCTUnwrap(result.findings.last)
        XCTAssertEqual(lane.check, .lane)
        XCTAssertEqual(lane.status, .warning)
        XCTAssertTrue(lane.detail.contains("socket: Address family not supported"), lane.detail)
        XCTAssertNotNil(lane.fix)
        XCTAssertTrue(result.summary.ready, "messages still go on GATT")
    }

    func testWithoutBluetoothdTheCheckSaysHowToStartIt() throws {
        let bus = try PrivateBus()
        let result = try check(.central, on: bus)
        XCTAssertEqual(statuses(result.findings), ["bus ok", "bluetoothd failed"])
        XCTAssertEqual(result.findings[1].fix, AdapterProblem.bluetoothdNotRunning.fix)
        XCTAssertFalse(result.summary.ready)
    }

    func testAnAdapterThatIsNotThereNamesThoseThatAre() throws {
        let bus = try PrivateBus(bluezooAdapters: PrivateBus.defaultAdapters)
        let result = try check(.central, on: bus, adapter: "hci7")
        XCTAssertEqual(statuses(result.findings).last, "adapter failed")
        XCTAssertEqual(result.findings.last?.fix, "name one of those with --adapter")
        XCTAssertTrue(result.findings.last?.detail.contains("hci0") ?? false)
    }

    func testAnInterruptedCheckRemovesWhatItRegistered() throws {
        // bluezoo answers the registration half a second late: the stop, posted when the step
        // before reports, comes while it is in flight (a fast answer was read in the same loop
        // turn as that report, before the stop: 2 runs in 6 under load).
        let bus = try PrivateBus()
        try bus.startBluezoo(busy: "slowadvertising=500")
        let before = try adapter("hci0", on: bus)
        let loop = EventLoop()
        var reported: [CheckFinding] = []
        var check: SetupCheck!
        var stopped = false
        check = SetupCheck(
            role: .peripheral(secure: false), adapter: nil, bus: .address(bus.address), loop: loop,
            facts: SystemFacts(root: root)
        ) { finding in
            reported.append(finding)
            // Interrupted while its test advertisement is being registered.
            if finding.check == .lowEnergy { loop.post { check.stop { stopped = true } } }
        }
        check.run { _ in XCTFail("an interrupted check has no summary") }
        XCTAssertTrue(loop.run(until: { stopped }, timeout: 20))
        // bluetoothd's answer to the registration comes after the stop.
        _ = loop.run(until: { false }, timeout: 1)
        XCTAssertEqual(reported.last?.check, .lowEnergy, "nothing reported after the interruption")
        XCTAssertNil(check.advertisement)
        let after = try adapter("hci0", on: bus)
        XCTAssertEqual(after.advertising?.activeInstances, before.advertising?.activeInstances)
    }
}

/// What `--check` reads outside the bus, and how its lines look.
final class SetupCheckValuesTests: XCTestCase {
    func testVersionsCompareByMajorAndMinor() {
        XCTAssertLessThan(SystemFacts.Version("5.47-3")!, SystemFacts.oldestBlueZ)
        XCTAssertGreaterThan(SystemFacts.Version("5.82-1")!, SystemFacts.Version("5.66-1+deb12u2")!)
        XCTAssertNil(SystemFacts.Version("unknown"))
    }

    func testNoFilesMeansNothingKnownRatherThanAGuess() {
        let facts = SystemFacts(root: "/nonexistent-\(UUID().uuidString)")
        XCTAssertNil(facts.rfkill(of: "hci0"))
        XCTAssertNil(facts.installedBlueZ())
    }

    func testAFindingIsOneLineAndOneJSONObjectWithItsFix() {
        let finding = CheckFinding.failed(.rfkill, "hci0 is blocked by rfkill", fix: "rfkill unblock bluetooth")
        XCTAssertEqual(
            finding.humanDescription,
            "failed   rfkill            hci0 is blocked by rfkill; fix: rfkill unblock bluetooth")
        let console = Console(format: .json)
        XCTAssertEqual(
            console.jsonLine(name: finding.name, fields: finding.fields).replacingOccurrences(
                of: #""time":"[^"]*","#, with: "", options: .regularExpression),
            #"{"event":"check","check":"rfkill","status":"failed","detail":"hci0 is blocked by rfkill","fix":"rfkill unblock bluetooth"}"#
        )
        XCTAssertFalse(CheckFinding.ok(.bus, "the system bus answers").fields.contains { $0.0 == "fix" })
    }
}
