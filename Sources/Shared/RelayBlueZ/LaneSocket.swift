import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How an LE address is known on the air, as the kernel's L2CAP sockets name it.
public enum LEAddressType: UInt8, Sendable, Equatable {
    /// `BDADDR_LE_PUBLIC`.
    case `public` = 1
    /// `BDADDR_LE_RANDOM` (static or resolvable private).
    case random = 2

    /// The type BlueZ's `AddressType` property names (`"public"`, `"random"`; public when unknown).
    public init(bluez text: String?) {
        self = text == "random" ? .random : .public
    }
}

/// The security an L2CAP lane asks of its link (`BT_SECURITY`).
public enum LaneSecurity: UInt8, Sendable, Equatable {
    /// No encryption required (the kernel's default).
    case low = 1
    /// An encrypted, authenticated LE Secure Connections link with a 128-bit key
    /// (`BT_SECURITY_FIPS`): what `--secure` asks, the level bluetoothd's `secure-*` flags hold
    /// GATT to.
    case secureConnections = 4
}

/// A failed call on an L2CAP socket: which call, and its `errno`.
public struct LaneSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public let call: String
    public let code: Int32

    public init(_ call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// The kernel's LE credit-based L2CAP sockets (net/bluetooth/l2cap_sock.c): `sockaddr_l2`,
/// its constants and options. Nothing here talks to bluetoothd.
enum L2CAPSocket {
    static let family: Int32 = 31  // AF_BLUETOOTH
    static let l2capProtocol: Int32 = 0  // BTPROTO_L2CAP
    static let bluetoothLevel: Int32 = 274  // SOL_BLUETOOTH
    static let securityOption: Int32 = 4  // BT_SECURITY
    static let sendMTUOption: Int32 = 12  // BT_SNDMTU
    static let receiveMTUOption: Int32 = 13  // BT_RCVMTU
    static let l2capLevel: Int32 = 6  // SOL_L2CAP
    static let connectionInfoOption: Int32 = 2  // L2CAP_CONNINFO
    /// Channels the kernel keeps accepted for relay-peripheral to take (`listen`'s backlog): a
    /// stranger opening channels as fast as it can fills 8 between two turns of the loop, and
    /// an honest central's channel is then refused.
    static let backlog: Int32 = 128
    /// The largest service data unit relay takes on a channel. Until the kernel knows the
    /// socket's free space (as the channel opens, and always before the credit change of 2024)
    /// it keeps `receiveMTU / MPS + 1` credits out to the sender: at its default 672 that is 3
    /// PDUs of 247 bytes in flight, one connection event's worth; at 65535, 266 (64 KiB, a
    /// window). The receiver reads each value as it comes, so more credits cost no memory of
    /// relay's.
    static let receiveMTU = 65535
    /// The receive buffer relay asks for (`SO_RCVBUF`; the kernel doubles it, within
    /// `net.core.rmem_max`, 212992 on Debian: 416 KiB). Since the LE credit change of 2024 (in
    /// Debian 12's 6.1 too) the kernel keeps out as many credits as the socket's free receive space
    /// less an estimate of its sk_buff overhead holds: 52 PDUs of 247 bytes at the default 208 KiB,
    /// 105 at 416 KiB. A data value of 32 PDUs (`MTU.sendValueLength(.lane)`) needs more than
    /// its own 32 out for the next to follow without a pause (measured: 57 KiB/s both ways at once
    /// with 52, 79 with 105).
    static let receiveBuffer: Int32 = 212992
    /// `sizeof(struct sockaddr_l2)`: family, psm, bdaddr, cid, bdaddr_type and one byte of padding.
    static let addressLength = 14

    /// A new non-blocking sequenced-packet L2CAP socket, or the error of `socket(2)`.
    static func open() throws(LaneSocketError) -> Int32 {
        let kind = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(family, kind, l2capProtocol)
        guard fd >= 0 else { throw LaneSocketError("socket", code: errno) }
        return fd
    }

    /// `struct sockaddr_l2` for `address` (nil: any adapter), its type and `psm` (0: any).
    static func address(_ address: BluetoothAddress?, type: LEAddressType, psm: UInt16) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: addressLength)
        bytes[0] = UInt8(family & 0xFF)
        bytes[1] = UInt8(family >> 8)
        bytes[2] = UInt8(psm & 0xFF)
        bytes[3] = UInt8(psm >> 8)
        // bdaddr_t is least significant byte first.
        if let address { bytes.replaceSubrange(4..<10, with: address.bytes.reversed()) }
        bytes[12] = type.rawValue
        return bytes
    }

    /// The address and PSM in a `struct sockaddr_l2`.
    static func parse(_ bytes: [UInt8]) -> (address: BluetoothAddress, type: LEAddressType, psm: UInt16)? {
        guard bytes.count >= 13, let address = BluetoothAddress(bytes: bytes[4..<10].reversed()) else { return nil }
        return (address, LEAddressType(rawValue: bytes[12]) ?? .public, UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
    }

    static func bind(_ fd: Int32, _ address: [UInt8]) throws(LaneSocketError) {
        let rc = address.withUnsafeBytes { raw in
            Glibc.bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard rc == 0 else { throw LaneSocketError("bind", code: errno) }
    }

    /// Sets `BT_SECURITY` (before listening or connecting).
    static func setSecurity(_ fd: Int32, _ security: LaneSecurity) throws(LaneSocketError) {
        var value: [UInt8] = [security.rawValue, 0]  // struct bt_security { level, key_size }
        let rc = setsockopt(fd, bluetoothLevel, securityOption, &value, socklen_t(value.count))
        guard rc == 0 else { throw LaneSocketError("setsockopt BT_SECURITY", code: errno) }
    }

    /// Asks for `receiveBuffer` (`SO_RCVBUF`); a smaller `rmem_max` gives less, silently, and
    /// the channel still works with fewer credits out.
    static func setReceiveBuffer(_ fd: Int32) {
        var room = receiveBuffer
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sets `BT_RCVMTU` to `receiveMTU`: after `bind` (the kernel takes it only once the socket
    /// has an LE address type: EINVAL before), before listening or connecting.
    static func setReceiveMTU(_ fd: Int32) throws(LaneSocketError) {
        var value = UInt16(receiveMTU)
        let rc = setsockopt(fd, bluetoothLevel, receiveMTUOption, &value, socklen_t(MemoryLayout<UInt16>.size))
        guard rc == 0 else { throw LaneSocketError("setsockopt BT_RCVMTU", code: errno) }
    }

    /// The largest service data unit the peer takes (`BT_SNDMTU`, once connected).
    static func sendMTU(_ fd: Int32) -> Int? {
        var value: UInt16 = 0
        var length = socklen_t(MemoryLayout<UInt16>.size)
        guard getsockopt(fd, bluetoothLevel, sendMTUOption, &value, &length) == 0 else { return nil }
        return Int(value)
    }

    /// The HCI handle of the link a connected channel is on (`L2CAP_CONNINFO`: the handle, in
    /// host order, then the link's 3-byte class of device).
    static func connectionHandle(_ fd: Int32) -> ConnectionHandle? {
        var info = [UInt8](repeating: 0, count: 6)
        var length = socklen_t(info.count)
        let rc = info.withUnsafeMutableBytes {
            getsockopt(fd, l2capLevel, connectionInfoOption, $0.baseAddress, &length)
        }
        guard rc == 0, length >= 2 else { return nil }
        return ConnectionHandle(info.withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) })
    }

    /// The local address of a bound socket.
    static func localAddress(_ fd: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: addressLength)
        var length = socklen_t(addressLength)
        let rc = bytes.withUnsafeMutableBytes { raw in
            getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        return rc == 0 ? bytes : nil
    }
}

/// The HCI connection handle of the link a channel came on (`L2CAP_CONNINFO`): the kernel names a
/// channel by its peer's address, which a just-works pairing can rename to another central's, so
/// two channels of one name on two handles are two links.
public struct ConnectionHandle: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt16

    public init(_ value: UInt16) { self.value = value }

    public var description: String { "link \(value)" }
}

/// A channel that opened: the socket (as an `AcquiredLink`: one value's bytes per datagram
/// read, flow control by writable readiness, hang-up), the peer and the room for values.
public struct OpenedLane {
    public let link: AcquiredLink
    public let peer: BluetoothAddress
    /// The MTU whose written-value room is the channel's (see `MTU(laneChannelMTU:)`).
    public let mtu: MTU
    /// The link it came on, for an accepted channel (nil: the kernel did not say; relay-central's
    /// own channel does not ask).
    public let connection: ConnectionHandle?
}

/// relay-peripheral's lane listener: a sequenced-packet L2CAP socket bound to its adapter's
/// address (or every adapter's) on a dynamic PSM the kernel picks, accepting channels as they
/// come. Bound to the adapter's own address, it wins that adapter's channels over a socket bound
/// to every adapter, and the kernel picks a PSM no other socket holds on that address, so a
/// local process cannot take its centrals' channels. Owns the
/// descriptor; each accepted channel is handed on and owned by whoever takes it.
public final class LaneListener {
    /// The PSM the kernel gave.
    public let psm: LanePSM
    private var fd: Int32
    private let loop: EventLoop
    private var token: EventLoop.Token?
    /// Each channel accepted, on the loop's thread.
    public var onAccept: ((OpenedLane) -> Void)?

    /// Listens with `security` on the adapter of public address `adapter` (nil: every adapter),
    /// on `psm`, or on a PSM the kernel picks (nil: `bind` with PSM 0). `psm` held on that
    /// address by another socket throws `EADDRINUSE`.
    public init(
        loop: EventLoop, security: LaneSecurity, adapter: BluetoothAddress? = nil, psm wanted: LanePSM? = nil
    ) throws(LaneSocketError) {
        let fd = try L2CAPSocket.open()
        do throws(LaneSocketError) {
            try L2CAPSocket.setSecurity(fd, security)
            try L2CAPSocket.bind(fd, L2CAPSocket.address(adapter, type: .public, psm: wanted?.value ?? 0))
            try L2CAPSocket.setReceiveMTU(fd)
            guard Glibc.listen(fd, L2CAPSocket.backlog) == 0 else { throw LaneSocketError("listen", code: errno) }
            guard let local = L2CAPSocket.localAddress(fd).flatMap(L2CAPSocket.parse),
                let psm = LanePSM(local.psm)
            else { throw LaneSocketError("getsockname", code: EINVAL) }
            self.psm = psm
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        self.loop = loop
        token = loop.watch(fd: fd, for: .readable) { [weak self] _ in self?.acceptAll() }
    }

    deinit { close() }

    /// Stops listening.
    public func close() {
        if let token { loop.cancel(token) }
        token = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private func pause() {
        guard let token else { return }
        loop.update(token, interest: [])
        _ = loop.schedule(after: 1) { [weak self] in
            guard let self, let token = self.token else { return }
            self.loop.update(token, interest: .readable)
        }
    }

    private func acceptAll() {
        while fd >= 0 {
            var bytes = [UInt8](repeating: 0, count: L2CAPSocket.addressLength)
            var length = socklen_t(L2CAPSocket.addressLength)
            let channel = bytes.withUnsafeMutableBytes { raw in
                accept(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
            }
            guard channel >= 0 else {
                let code = errno
                if code == ECONNABORTED { continue }
                // Out of descriptors or memory: the channel stays queued and poll says readable
                // at once; wait a second instead of turning at full speed.
                if code != EAGAIN && code != EWOULDBLOCK && code != EINTR { pause() }
                return
            }
            _ = fcntl(channel, F_SETFD, FD_CLOEXEC)
            // An accepted channel starts with the default buffer, not the listener's.
            L2CAPSocket.setReceiveBuffer(channel)
            guard let peer = L2CAPSocket.parse(bytes) else {
                Glibc.close(channel)
                continue
            }
            let mtu = MTU(laneChannelMTU: L2CAPSocket.sendMTU(channel) ?? MTU.minimum)
            onAccept?(
                OpenedLane(
                    link: AcquiredLink(fd: channel, mtu: mtu, loop: loop, receiveLimit: L2CAPSocket.receiveMTU),
                    peer: peer.address, mtu: mtu, connection: L2CAPSocket.connectionHandle(channel)))
        }
    }
}

/// relay-central's side: opens one channel to a peer's PSM without blocking and reports once,
/// on the loop's thread: the opened lane, or why it did not open (within `timeout` seconds).
public final class LaneConnector {
    private var fd: Int32 = -1
    private let loop: EventLoop
    private var watch: EventLoop.Token?
    private var timer: EventLoop.Token?
    private let peer: BluetoothAddress
    private var completion: ((Result<OpenedLane, LaneSocketError>) -> Void)?

    /// Starts opening a channel from the adapter at `local` (of `localType`) to `psm` of `peer`.
    public init(
        loop: EventLoop, local: BluetoothAddress, localType: LEAddressType, peer: BluetoothAddress,
        peerType: LEAddressType, psm: LanePSM, security: LaneSecurity, timeout: Double,
        completion: @escaping (Result<OpenedLane, LaneSocketError>) -> Void
    ) {
        self.loop = loop
        self.peer = peer
        self.completion = completion
        do throws(LaneSocketError) {
            fd = try L2CAPSocket.open()
            try L2CAPSocket.setSecurity(fd, security)
            // Bound first: an unbound client socket picks its adapter badly (bluez#618).
            try L2CAPSocket.bind(fd, L2CAPSocket.address(local, type: localType, psm: 0))
            try L2CAPSocket.setReceiveMTU(fd)
            L2CAPSocket.setReceiveBuffer(fd)
            let target = L2CAPSocket.address(peer, type: peerType, psm: psm.value)
            let rc = target.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if rc == 0 {
                loop.post { [weak self] in self?.finishConnected() }
                return
            }
            guard errno == EINPROGRESS else { throw LaneSocketError("connect", code: errno) }
        } catch {
            loop.post { [weak self] in self?.finish(.failure(error)) }
            return
        }
        watch = loop.watch(fd: fd, for: .writable) { [weak self] _ in self?.finishConnected() }
        timer = loop.schedule(after: timeout) { [weak self] in
            self?.finish(.failure(LaneSocketError("connect", code: ETIMEDOUT)))
        }
    }

    deinit { cancel() }

    /// Gives up (no report follows).
    public func cancel() {
        completion = nil
        tearDown(closing: true)
    }

    private func finishConnected() {
        guard fd >= 0 else { return }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
            return finish(.failure(LaneSocketError("connect", code: errno)))
        }
        guard code == 0 else { return finish(.failure(LaneSocketError("connect", code: code))) }
        let mtu = MTU(laneChannelMTU: L2CAPSocket.sendMTU(fd) ?? MTU.minimum)
        let channel = fd
        tearDown(closing: false)
        finish(
            .success(
                OpenedLane(
                    link: AcquiredLink(fd: channel, mtu: mtu, loop: loop, receiveLimit: L2CAPSocket.receiveMTU),
                    peer: peer, mtu: mtu, connection: nil)))
    }

    private func finish(_ result: Result<OpenedLane, LaneSocketError>) {
        if case .failure = result { tearDown(closing: true) }
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    private func tearDown(closing: Bool) {
        if let watch { loop.cancel(watch) }
        if let timer { loop.cancel(timer) }
        watch = nil
        timer = nil
        if closing, fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
