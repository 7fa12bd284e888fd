/// The stream bytes a receiver holds beyond its first gap, in one buffer of the window's size.
///
/// Every byte held lies in `[received, received + window)`, so a byte's place in the buffer is its
/// stream offset modulo the window: a frame costs a copy into the buffer and an insert into a set
/// of at most `maximumRanges` ranges, whatever the frames' sizes or order. The buffer is allocated
/// when the first byte comes out of order and freed with the store. A frame that would split what
/// is held into more than `maximumRanges` pieces is refused (its sender sends it again once the
/// gaps before it are filled), so a peer sending one byte in two costs neither memory nor time.
struct OutOfOrderStore: Sendable {
    /// The window: the span of stream offsets the store can hold at once.
    let capacity: Int
    /// The most separate ranges held at once.
    let maximumRanges: Int
    private var slots: [UInt8] = []
    /// What is held, by stream offset.
    private(set) var held = ByteRanges()

    init(capacity: Int, maximumRanges: Int) {
        precondition(capacity > 0 && maximumRanges > 0)
        self.capacity = capacity
        self.maximumRanges = maximumRanges
    }

    /// Bytes held.
    var count: Int { held.count }

    /// Bytes of memory the buffer takes (0 until the first byte came out of order).
    var allocated: Int { slots.capacity }

    /// Keeps `bytes`, which start at stream offset `offset` and end within the window, except what
    /// is held already. Returns false, keeping nothing, when that would make more than
    /// `maximumRanges` separate ranges.
    mutating func keep(_ bytes: ArraySlice<UInt8>, at offset: Int) -> Bool {
        let range = offset..<(offset + bytes.count)
        var after = held
        after.insert(range)
        guard after.ranges.count <= maximumRanges else { return false }
        if slots.isEmpty { slots = [UInt8](repeating: 0, count: capacity) }
        for gap in held.missing(in: range) {
            write(bytes[(bytes.startIndex + gap.lowerBound - offset)...].prefix(gap.count), at: gap.lowerBound)
        }
        held = after
        return true
    }

    /// The bytes held from `point` on up to the first gap after it, removed from the store; nil when
    /// the first range held starts after `point` (ranges wholly below it are forgotten).
    mutating func take(from point: Int) -> [UInt8]? {
        while let first = held.ranges.first, first.lowerBound <= point {
            held.remove(first)
            if first.upperBound > point { return read(point..<first.upperBound) }
        }
        return nil
    }

    private mutating func write(_ bytes: ArraySlice<UInt8>, at offset: Int) {
        let start = offset % capacity
        let first = min(bytes.count, capacity - start)
        slots.replaceSubrange(start..<(start + first), with: bytes.prefix(first))
        if first < bytes.count { slots.replaceSubrange(0..<(bytes.count - first), with: bytes.dropFirst(first)) }
    }

    private func read(_ range: Range<Int>) -> [UInt8] {
        let start = range.lowerBound % capacity
        let first = min(range.count, capacity - start)
        var bytes = Array(slots[start..<(start + first)])
        if first < range.count { bytes += slots[0..<(range.count - first)] }
        return bytes
    }
}
