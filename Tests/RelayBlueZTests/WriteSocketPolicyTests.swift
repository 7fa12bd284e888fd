import RelayBlueZ
import XCTest

/// `WriteSocketPolicy`: when a write socket is taken, and what bluetoothd's behaviour shows of
/// how it shares them (BlueZ 5.66: one for every device; 5.69 and later: one per device).
final class WriteSocketPolicyTests: XCTestCase {
    let write = BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480")!
    let session = BluetoothUUID("6B5C4A87-CFB7-4031-98EB-09DF5E2543F0")!
    let a = DeviceID(path: "/org/bluez/hci0/dev_00_AA_01_00_00_01")!
    let b = DeviceID(path: "/org/bluez/hci0/dev_00_AA_01_00_00_02")!
    let c = DeviceID(path: "/org/bluez/hci0/dev_00_AA_01_00_00_03")!

    func policy() -> WriteSocketPolicy { WriteSocketPolicy(characteristics: [write, session]) }

    /// A device that connected and got sockets on both characteristics.
    func withSockets(_ policy: inout WriteSocketPolicy, _ device: DeviceID) {
        _ = policy.deviceConnected(device)
        for uuid in [write, session] {
            XCTAssertTrue(policy.shouldAccept(device, on: uuid))
            _ = policy.opened(device, on: uuid)
        }
    }

    func testUnknownSharingTakesASocketOnlyWhileItsDeviceIsAlone() {
        var policy = policy()
        XCTAssertTrue(policy.offers(write))
        XCTAssertFalse(policy.offers(BluetoothUUID("DFB13451-1740-4F8A-B0F0-7C20D79E8BDF")!), "not a write socket")
        withSockets(&policy, a)
        XCTAssertEqual(policy.devicesWithSockets, [a])
        // A second device: on a shared socket its writes would arrive as a's, so a's go.
        XCTAssertEqual(policy.deviceConnected(b), [.close(a), .offer([write, session], false)])
        XCTAssertEqual(policy.devicesWithSockets, [])
        XCTAssertFalse(policy.shouldAccept(b, on: write))
        XCTAssertFalse(policy.shouldAccept(a, on: write))
        XCTAssertEqual(policy.sharing, .unknown)
        // b alone again: offered again.
        XCTAssertEqual(policy.deviceDisconnected(a, now: 10), [.offer([write, session], true)])
        XCTAssertTrue(policy.shouldAccept(b, on: session))
    }

    func testASocketHungUpWithItsDeviceShowsPerDeviceSockets() {
        // Hang-up first, then the disconnection (the order bluetoothd's two reports often arrive in).
        var policy = policy()
        withSockets(&policy, a)
        XCTAssertEqual(policy.hungUp(a, on: write, now: 5.0), [])
        XCTAssertEqual(policy.hungUp(a, on: session, now: 5.0), [])
        XCTAssertEqual(policy.deviceDisconnected(a, now: 5.3), [.learned(.perDevice)])
        XCTAssertEqual(policy.sharing, .perDevice)

        // The disconnection first, then the hang-ups.
        var other = self.policy()
        withSockets(&other, a)
        XCTAssertEqual(other.deviceDisconnected(a, now: 5.0), [.offer([write, session], false)])
        XCTAssertEqual(other.nextDeadline, 5.0 + WriteSocketPolicy.grace)
        XCTAssertEqual(other.hungUp(a, on: write, now: 5.1), [])
        XCTAssertEqual(other.hungUp(a, on: session, now: 5.1), [.learned(.perDevice), .offer([write, session], true)])
        XCTAssertEqual(other.tick(now: 8), [])
        XCTAssertEqual(other.sharing, .perDevice)
    }

    func testASocketLeftOpenAfterItsDeviceLeftShowsASharedSocket() {
        var policy = policy()
        withSockets(&policy, a)
        _ = policy.deviceDisconnected(a, now: 5.0)
        XCTAssertEqual(policy.tick(now: 6.0), [], "still within the grace")
        XCTAssertEqual(policy.tick(now: 7.1), [.close(a), .learned(.shared)])
        XCTAssertEqual(policy.sharing, .shared)
        XCTAssertFalse(policy.offers(write))
        _ = policy.deviceConnected(b)
        XCTAssertFalse(policy.shouldAccept(b, on: write), "never a shared socket again")
        // A new bluetoothd is learnt anew.
        XCTAssertEqual(policy.reset(), [.offer([write, session], true)])
        XCTAssertEqual(policy.sharing, .unknown)
        XCTAssertTrue(policy.shouldAccept(b, on: write))
    }

    func testAHangUpLongBeforeTheDisconnectionShowsNothing() {
        var policy = policy()
        withSockets(&policy, a)
        _ = policy.hungUp(a, on: write, now: 1)
        _ = policy.hungUp(a, on: session, now: 1)
        _ = policy.tick(now: 10)
        XCTAssertEqual(policy.deviceDisconnected(a, now: 10), [])
        XCTAssertEqual(policy.sharing, .unknown)
    }

    func testADeviceArrivingWhileTheLeavingOneIsWatchedClosesItsSocketAndLearnsNothing() {
        var policy = policy()
        withSockets(&policy, a)
        _ = policy.deviceDisconnected(a, now: 5.0)
        XCTAssertFalse(policy.shouldAccept(b, on: write), "not while a's socket may still be shared")
        XCTAssertEqual(policy.deviceConnected(b), [.close(a), .offer([write, session], true)])
        XCTAssertNil(policy.nextDeadline)
        XCTAssertEqual(policy.tick(now: 9), [])
        XCTAssertEqual(policy.sharing, .unknown)
        XCTAssertTrue(policy.shouldAccept(b, on: write))
    }

    func testPerDeviceSocketsGoOnlyToADeviceWhoseWritesCannotMixWithAnothers() {
        var policy = policy()
        withSockets(&policy, a)
        _ = policy.hungUp(a, on: write, now: 5)
        _ = policy.hungUp(a, on: session, now: 5)
        _ = policy.deviceDisconnected(a, now: 5)
        XCTAssertEqual(policy.sharing, .perDevice)

        withSockets(&policy, b)
        // c arrives after b has its sockets: c is the only one without, so its writes cannot be
        // flushed into another device's new socket.
        XCTAssertEqual(policy.deviceConnected(c), [])
        XCTAssertTrue(policy.shouldAccept(c, on: write))
        _ = policy.opened(c, on: write)
        XCTAssertEqual(policy.devicesWithSockets, [b, c])
        // A fourth device while c still writes the session characteristic through WriteValue:
        // two without a socket there, so neither gets one (the other's writes could be flushed
        // into it) and the session characteristic stops offering.
        let d = DeviceID(path: "/org/bluez/hci0/dev_00_AA_01_00_00_04")!
        XCTAssertEqual(policy.deviceConnected(d), [.offer([session], false)])
        XCTAssertFalse(policy.shouldAccept(c, on: session))
        XCTAssertFalse(policy.shouldAccept(d, on: session))
        XCTAssertTrue(policy.shouldAccept(d, on: write), "everyone else has a write socket")
        // c leaves: d is alone without a session socket and gets one.
        _ = policy.hungUp(c, on: write, now: 9)
        XCTAssertEqual(policy.deviceDisconnected(c, now: 9), [.offer([write, session], true)])
        XCTAssertTrue(policy.shouldAccept(d, on: session))
    }
}
