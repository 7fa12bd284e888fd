import RelayBlueZ
import RelayProtocol
import RelayRuntime

/// The checks of one role: what relay-peripheral registers with bluetoothd, what relay-central
/// asks of the adapter, and what the adapter offers for throughput.
extension SetupCheck {
    /// The fix for a refusal from bluetoothd: its hint, else its log.
    static func fix(for error: BlueZError) -> String {
        error.hint.isEmpty ? "see why in bluetoothd's log: journalctl -u bluetooth" : error.hint
    }

    /// The test service's UUID: not relay's, so a phone that looks for relay never sees it.
    static let testService = BluetoothUUID("5E1A7C4E-C4EC-4B1E-9A55-0E1A7C4EC4EC")!

    /// Registers a test advertisement and withdraws it.
    func checkAdvertising(_ finish: @escaping (Bool) -> Void) {
        guard let client, let adapter, let manager = adapter.advertising else { return finish(false) }
        let taken = "every advertising slot of \(adapter.name) is taken (\(manager.activeInstances) active)"
        let takenFix =
            "stop the other advertisers (another relay-peripheral, 'bluetoothctl advertise off', phone-link services)"
        guard manager.supportedInstances > 0 else {
            note(.failed(.advertising, taken, fix: takenFix))
            return finish(false)
        }
        let advertisement = LEAdvertisement(
            // Non-connectable (a broadcast): nobody in the room can connect to the check.
            client: client, path: "/org/relay/check/advertisement", data: AdvertisementData(kind: .broadcast))
        self.advertisement = advertisement
        calling()
        advertisement.register(adapter: adapter.id) { [weak self] result in
            guard let self, self.answered() else { return }
            switch result {
            case .success:
                advertisement.withdraw { [weak self] _ in
                    guard let self else { return }
                    self.advertisement = nil
                    self.note(
                        .ok(
                            .advertising,
                            "a test advertisement was registered and removed (\(manager.supportedInstances) of "
                                + "\(manager.supportedInstances + manager.activeInstances) slots free)"))
                    finish(true)
                }
            case .failure(let error) where error.kind == .notPermitted:
                self.note(.failed(.advertising, taken + " (\(error))", fix: takenFix))
                finish(false)
            case .failure(let error):
                self.note(
                    .failed(
                        .advertising, "bluetoothd refused a test advertisement: \(error)", fix: Self.fix(for: error)))
                finish(false)
            }
        }
    }

    /// Whether bluetoothd advertises at `interval` (else a class of centrals waits tens of
    /// seconds to find the peripheral), and the setting that spares bluetoothd reading the
    /// services of every central that connects, where bluetoothd has it.
    func checkRoom(_ interval: AdvertisingInterval, _ finish: @escaping (Bool) -> Void) {
        guard let adapter, let manager = adapter.advertising else { return finish(false) }
        var advice = ""
        if let version = facts.installedBlueZ(), version >= SystemFacts.gattClientSetting,
            !facts.gattClientDisabled()
        {
            advice =
                "; with many centrals on this laptop, Client = false under [GATT] in /etc/bluetooth/main.conf "
                + "keeps bluetoothd from reading each central's services as it connects"
        }
        let slots =
            "\(manager.supportedInstances) more advertisements possible on \(adapter.name); "
            + Self.advertisingKind(extended: !manager.supportedSecondaryChannels.isEmpty)
            + "; how many centrals it holds at once is its controller's, which bluetoothd does not say"
        if manager.readsIntervals {
            note(.ok(.room, "bluetoothd advertises every \(interval) as asked; \(slots)" + advice))
        } else {
            note(
                .warning(
                    .room,
                    "bluetoothd ignores the advertising interval asked for (\(interval)) and advertises every 1.28 s: "
                        + "a room of centrals takes tens of seconds to find the peripheral; \(slots)" + advice,
                    fix:
                        "turn on bluetoothd's experimental features (BlueZ 5.66): Experimental = true under [General] "
                        + "in /etc/bluetooth/main.conf, then sudo systemctl restart bluetooth"))
        }
        finish(true)
    }

    /// What a presenter learns from the kind of advertising: a connection ends it either way;
    /// Linux starts legacy advertising again itself (and says nothing when the controller cannot
    /// advertise while connected), extended advertising only when relay-peripheral registers
    /// it again, which the adapter refuses, and relay-peripheral says, when it cannot.
    static func advertisingKind(extended: Bool) -> String {
        extended
            ? "it advertises extended: if its controller cannot advertise while a central is connected, "
                + "relay-peripheral says so (stopped, reason connected)"
            : "it advertises legacy: if its controller cannot advertise while a central is connected, "
                + "nothing says so (Linux gives up silently): try two centrals before the class"
    }

    /// Registers a test GATT application (one service of its own) and removes it.
    func checkGattApplication(_ finish: @escaping (Bool) -> Void) {
        guard let client, let adapter else { return finish(false) }
        let application = GattApplication(
            client: client, root: "/org/relay/check/gatt",
            services: [
                LocalService(
                    uuid: Self.testService, characteristics: [LocalCharacteristic(uuid: Self.testService, flags: .read)]
                )
            ])
        self.application = application
        calling()
        application.register(adapter: adapter.id) { [weak self] result in
            guard let self, self.answered() else { return }
            switch result {
            case .success(let registration):
                registration.unregister { [weak self] _ in
                    application.unexport()
                    guard let self else { return }
                    self.application = nil
                    self.note(.ok(.gattApplication, "a test GATT application was registered and removed"))
                    finish(true)
                }
            case .failure(let error):
                self.note(
                    .failed(
                        .gattApplication, "bluetoothd refused a test GATT application: \(error)",
                        fix: Self.fix(for: error)))
                finish(false)
            }
        }
    }

    /// `--secure`: registers the pairing agent as the default one and unregisters it.
    func checkAgent(_ finish: @escaping (Bool) -> Void) {
        guard let client else { return finish(false) }
        let agent = PairingAgent(client: client, capability: .displayOnly, path: "/org/relay/check/agent")
        self.agent = agent
        calling()
        agent.register(asDefault: true) { [weak self] result in
            guard let self, self.answered() else { return }
            switch result {
            case .success:
                agent.unregister { [weak self] _ in
                    guard let self else { return }
                    self.agent = nil
                    self.note(
                        .ok(.agent, "the pairing agent (--secure shows passkeys through it) registered as the default"))
                    finish(true)
                }
            case .failure(let error):
                self.note(
                    .failed(
                        .agent, "bluetoothd refused the pairing agent: \(error)",
                        fix:
                            "stop the program that holds the default agent (e.g. bluetoothctl), or run without --secure"
                    ))
                finish(false)
            }
        }
    }

    /// How many times discovery is asked for when bluetoothd answers it is busy.
    static let discoveryAttempts = 3

    /// Seconds before asking again (a test asks sooner).
    nonisolated(unsafe) static var discoveryRetryDelay: Double = 1

    /// Starts discovery for relay's service and stops it (`stopCheckDiscovery`). bluetoothd answers
    /// `InProgress` when the kernel refused to start discovery, still busy (seen once in 27 runs of the test bed's check
    /// scenario, right after another program's check on that adapter; BlueZ of 2020 also kept the
    /// client listed after that answer): the session is released and asked for again a second
    /// later, three times at most.
    func checkDiscovery(_ finish: @escaping (Bool) -> Void, attempt: Int = 1) {
        guard let client, let adapter else { return finish(false) }
        let filter = DiscoveryFilter(uuids: [RelayProfile.service], transport: .le)
        let failed: (BlueZError) -> Void = { [weak self] error in
            guard let self else { return }
            self.note(.failed(.discovery, "\(adapter.name) cannot discover: \(error)", fix: Self.fix(for: error)))
            finish(false)
        }
        client.setDiscoveryFilter(filter, adapter: adapter.id) { [weak self] result in
            guard let self else { return }
            if case .failure(let error) = result { return failed(error) }
            self.calling()
            client.startDiscovery(adapter: adapter.id) { [weak self] result in
                guard let self else { return }
                if case .success = result { self.discovering = true }
                guard self.answered() else { return }
                if case .failure(let error) = result {
                    guard error.kind == .inProgress, attempt < Self.discoveryAttempts else { return failed(error) }
                    self.calling()
                    client.stopDiscovery(adapter: adapter.id) { [weak self] _ in
                        guard let self, self.answered() else { return }
                        self.askAgainLater { self.checkDiscovery(finish, attempt: attempt + 1) }
                    }
                    return
                }
                self.stopCheckDiscovery(finish, failed: failed, startAttempt: attempt)
            }
        }
    }

    /// Stops the discovery `checkDiscovery` started. bluetoothd answers `InProgress` when the
    /// kernel is still starting it (seen once in the test bed, 58 ms after the start, CI of
    /// 2026-12-07 03:43): asked again a second later, three times at most. It answers `Failed: No
    /// discovery started` when it no longer lists this client's discovery, which the kernel ended
    /// between the start's answer and the stop (seen once in the test bed, CI of 2026-12-07
    /// 08:00): the discovery is started again a second later (the start's attempts count).
    private func stopCheckDiscovery(
        _ finish: @escaping (Bool) -> Void, failed: @escaping (BlueZError) -> Void, startAttempt: Int,
        attempt: Int = 1
    ) {
        guard let client, let adapter else { return finish(false) }
        client.stopDiscovery(adapter: adapter.id) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                self.discovering = false
                self.note(.ok(.discovery, "discovery starts and stops on \(adapter.name)"))
                finish(true)
            case .failure(let error)
            where error.kind == .failed && error.message.hasPrefix("No discovery started")
                && startAttempt < Self.discoveryAttempts:
                self.discovering = false
                self.askAgainLater { self.checkDiscovery(finish, attempt: startAttempt + 1) }
            case .failure(let error) where error.kind == .inProgress && attempt < Self.discoveryAttempts:
                self.askAgainLater {
                    self.stopCheckDiscovery(finish, failed: failed, startAttempt: startAttempt, attempt: attempt + 1)
                }
            case .failure(let error):
                self.discovering = false
                failed(error)
            }
        }
    }

    /// Runs `again` `discoveryRetryDelay` seconds later; the wait counts as a call in flight, so
    /// an interrupted check ends after it and `again` does not run.
    private func askAgainLater(_ again: @escaping () -> Void) {
        calling()
        loop.schedule(after: Self.discoveryRetryDelay) { [weak self] in
            guard let self, self.answered() else { return }
            again()
        }
    }

    /// A real listener for L2CAP channels on a PSM the kernel picks, closed at once.
    public static func listenOnce(_ loop: EventLoop) -> Result<LanePSM, LaneSocketError> {
        do {
            let listener = try LaneListener(loop: loop, security: .low)
            listener.close()
            return .success(listener.psm)
        } catch {
            return .failure(error)
        }
    }

    /// Whether the kernel opens LE L2CAP channel sockets (the lane between two relays).
    func checkLane(_ finish: @escaping (Bool) -> Void) {
        switch laneProbe(loop) {
        case .success(let psm):
            note(
                .ok(
                    .lane,
                    "an LE L2CAP channel listened on PSM \(psm) and closed: messages between two relays can skip "
                        + "bluetoothd (--lane auto)"))
        case .failure(let error):
            note(
                .warning(
                    .lane, "this kernel opens no LE L2CAP channel (\(error)): messages go on GATT",
                    fix: "a kernel with Bluetooth L2CAP sockets (CONFIG_BT_LE); or run with --lane gatt"))
        }
        finish(true)
    }

    /// What the adapter reports of the features that set relay's throughput.
    func checkFeatures(_ finish: @escaping (Bool) -> Void) {
        guard let adapter else { return finish(true) }
        guard let manager = adapter.advertising else {
            note(
                .warning(
                    .features, "bluetoothd reports no LE features of \(adapter.name)",
                    fix: "run bluetoothd 5.62 or later to see them (docs/performance.md: what the radio allows)"))
            return finish(true)
        }
        let twoM = manager.supportedSecondaryChannels.contains("2M")
        let extended = (manager.maximumAdvertisingDataLength ?? 31) > 31
        let detail =
            "2M PHY \(twoM ? "yes" : "no"), extended advertising \(extended ? "yes" : "no"); "
            + "data length extension not reported by bluetoothd"
        if twoM {
            note(.ok(.features, detail + " (2M PHY doubles the air's rate: docs/performance.md)"))
        } else {
            note(
                .warning(
                    .features, detail + " (without 2M PHY the air carries half as much)",
                    fix: "a Bluetooth 5 adapter (2M PHY) roughly doubles what relay can move: docs/performance.md"))
        }
        finish(true)
    }
}
