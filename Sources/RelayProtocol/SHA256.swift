/// SHA-256 (FIPS 180-4), used to fingerprint received and sent messages.
///
/// Pure Swift, no I/O. Feed bytes incrementally with `update(_:)` and finish with
/// `finalize()`, or hash a whole buffer at once with `SHA256.hash(_:)`.
public struct SHA256: Sendable {
    /// A finished 32-byte SHA-256 digest.
    public struct Digest: Hashable, Sendable, CustomStringConvertible {
        /// The 32 digest bytes, most significant first.
        public let bytes: [UInt8]

        /// Lower-case hexadecimal, 64 characters (the form `sha256sum` prints).
        public var hex: String { Hex.string(bytes) }

        public var description: String { hex }
    }

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private static let initialState: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    private var state: [UInt32] = SHA256.initialState
    private var pending: [UInt8] = []
    private var totalLength: UInt64 = 0

    /// A fresh hasher with nothing fed yet.
    public init() {
        pending.reserveCapacity(64)
    }

    /// Hashes `bytes` in one call.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> Digest where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Feeds more bytes.
    ///
    /// Contiguous inputs (`[UInt8]`, `ArraySlice`, `Data`-like collections) are hashed straight
    /// from their storage, whole 64-byte blocks in place; any other sequence is copied into a
    /// small local buffer first. Both give the same digest.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            absorb(UnsafeRawBufferPointer(buffer))
        }
        if done != nil { return }
        var staged: [UInt8] = []
        staged.reserveCapacity(4096)
        for byte in bytes {
            staged.append(byte)
            if staged.count == 4096 {
                staged.withUnsafeBytes { absorb($0) }
                staged.removeAll(keepingCapacity: true)
            }
        }
        staged.withUnsafeBytes { absorb($0) }
    }

    /// Feeds a contiguous byte array.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { absorb($0) }
    }

    /// The one place input enters: fills `pending` up to a block, then compresses whole blocks
    /// straight from `bytes`, and keeps the tail in `pending`.
    private mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
        totalLength &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            start = take
            if pending.count < 64 { return }
            pending.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - start >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + 64)]))
            start += 64
        }
        if start < bytes.count { pending.append(contentsOf: bytes[start...]) }
    }

    /// Pads, processes the last block(s) and returns the digest. The hasher is consumed.
    public consuming func finalize() -> Digest {
        let bitLength = totalLength &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                compress(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + 64)]))
                offset += 64
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in state {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        return Digest(bytes: out)
    }

    @inline(__always)
    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    /// Processes one 64-byte block (`block.count == 64`), without allocating.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for t in 0..<16 {
                schedule[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
            }
            for t in 16..<64 {
                let s0 =
                    Self.rotateRight(schedule[t - 15], 7) ^ Self.rotateRight(schedule[t - 15], 18)
                    ^ (schedule[t - 15] >> 3)
                let s1 =
                    Self.rotateRight(schedule[t - 2], 17) ^ Self.rotateRight(schedule[t - 2], 19)
                    ^ (schedule[t - 2] >> 10)
                schedule[t] = schedule[t - 16] &+ s0 &+ schedule[t - 7] &+ s1
            }
            Self.roundConstants.withUnsafeBufferPointer { constants in
                state.withUnsafeMutableBufferPointer { state in
                    var a = state[0]
                    var b = state[1]
                    var c = state[2]
                    var d = state[3]
                    var e = state[4]
                    var f = state[5]
                    var g = state[6]
                    var h = state[7]
                    for t in 0..<64 {
                        let sum1 = Self.rotateRight(e, 6) ^ Self.rotateRight(e, 11) ^ Self.rotateRight(e, 25)
                        let choose = (e & f) ^ (~e & g)
                        let temp1 = h &+ sum1 &+ choose &+ constants[t] &+ schedule[t]
                        let sum0 = Self.rotateRight(a, 2) ^ Self.rotateRight(a, 13) ^ Self.rotateRight(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temp2 = sum0 &+ majority
                        h = g
                        g = f
                        f = e
                        e = d &+ temp1
                        d = c
                        c = b
                        b = a
                        a = temp1 &+ temp2
                    }
                    state[0] &+= a
                    state[1] &+= b
                    state[2] &+= c
                    state[3] &+= d
                    state[4] &+= e
                    state[5] &+= f
                    state[6] &+= g
                    state[7] &+= h
                }
            }
        }
    }
}
