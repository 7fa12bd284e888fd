/// A set of byte offsets kept as sorted, disjoint, non-adjacent half-open ranges: what a receiver
/// holds of a message stream, or what a sender has handed over.
public struct ByteRanges: Sendable, Equatable, CustomStringConvertible {
    /// The ranges, ascending, never empty, never touching.
    public private(set) var ranges: [Range<Int>] = []

    /// An empty set.
    public init() {}

    /// The set of `ranges` (in any order, overlapping or not).
    public init(_ ranges: some Sequence<Range<Int>>) {
        for range in ranges { insert(range) }
    }

    /// Whether no byte is in the set.
    public var isEmpty: Bool { ranges.isEmpty }

    /// How many bytes the set holds.
    public var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// The end of the range that starts at 0 (every byte below it is in the set), else 0.
    public var prefixEnd: Int { ranges.first.map { $0.lowerBound == 0 ? $0.upperBound : 0 } ?? 0 }

    /// One past the highest byte, or 0 when empty.
    public var upperBound: Int { ranges.last?.upperBound ?? 0 }

    /// Adds `range`.
    public mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        // The first range that ends at or after range's start (touching counts: merged).
        let first = firstIndex(endingAtOrAfter: range.lowerBound)
        var last = first
        var merged = range
        while last < ranges.count, ranges[last].lowerBound <= merged.upperBound {
            merged = min(merged.lowerBound, ranges[last].lowerBound)..<max(merged.upperBound, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [merged])
    }

    /// Adds every range of `other`.
    public mutating func formUnion(_ other: ByteRanges) {
        for range in other.ranges { insert(range) }
    }

    /// Removes `range`.
    public mutating func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var result: [Range<Int>] = []
        result.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound <= range.lowerBound || existing.lowerBound >= range.upperBound {
                result.append(existing)
                continue
            }
            if existing.lowerBound < range.lowerBound { result.append(existing.lowerBound..<range.lowerBound) }
            if existing.upperBound > range.upperBound { result.append(range.upperBound..<existing.upperBound) }
        }
        ranges = result
    }

    /// Whether every byte of `range` is in the set.
    public func contains(_ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return true }
        let index = firstIndex(endingAtOrAfter: range.lowerBound + 1)
        return index < ranges.count && ranges[index].lowerBound <= range.lowerBound
            && ranges[index].upperBound >= range.upperBound
    }

    /// The parts of `range` not in the set, ascending.
    public func missing(in range: Range<Int>) -> [Range<Int>] {
        guard !range.isEmpty else { return [] }
        var gaps: [Range<Int>] = []
        var cursor = range.lowerBound
        var index = firstIndex(endingAtOrAfter: range.lowerBound + 1)
        while cursor < range.upperBound {
            guard index < ranges.count, ranges[index].lowerBound < range.upperBound else {
                gaps.append(cursor..<range.upperBound)
                break
            }
            let next = ranges[index]
            if next.lowerBound > cursor { gaps.append(cursor..<next.lowerBound) }
            cursor = max(cursor, next.upperBound)
            index += 1
        }
        return gaps
    }

    /// The first part of `range` not in the set, if any.
    public func firstMissing(in range: Range<Int>) -> Range<Int>? {
        guard !range.isEmpty else { return nil }
        var cursor = range.lowerBound
        var index = firstIndex(endingAtOrAfter: range.lowerBound + 1)
        while cursor < range.upperBound {
            guard index < ranges.count, ranges[index].lowerBound < range.upperBound else {
                return cursor..<range.upperBound
            }
            let next = ranges[index]
            if next.lowerBound > cursor { return cursor..<next.lowerBound }
            cursor = max(cursor, next.upperBound)
            index += 1
        }
        return nil
    }

    /// How many bytes of `range` are in the set.
    public func overlap(with range: Range<Int>) -> Int {
        range.count - missing(in: range).reduce(0) { $0 + $1.count }
    }

    /// The parts of `range` that are in the set, in order.
    public func intersection(with range: Range<Int>) -> [Range<Int>] {
        guard !range.isEmpty else { return [] }
        var pieces: [Range<Int>] = []
        var index = firstIndex(endingAtOrAfter: range.lowerBound + 1)
        while index < ranges.count, ranges[index].lowerBound < range.upperBound {
            let piece =
                max(ranges[index].lowerBound, range.lowerBound)..<min(ranges[index].upperBound, range.upperBound)
            if !piece.isEmpty { pieces.append(piece) }
            index += 1
        }
        return pieces
    }

    /// Keeps the lowest `count` ranges and forgets the rest.
    public mutating func keepLowest(_ count: Int) {
        if ranges.count > count { ranges.removeLast(ranges.count - count) }
    }

    /// The index of the first range whose upper bound is at least `offset`.
    private func firstIndex(endingAtOrAfter offset: Int) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `[0..<10, 20..<30]`.
    public var description: String {
        "[" + ranges.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ") + "]"
    }
}
