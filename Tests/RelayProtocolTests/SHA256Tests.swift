import XCTest

@testable import RelayProtocol

/// FIPS 180-4 / NIST CAVS example vectors for SHA-256.
final class SHA256Tests: XCTestCase {
    func testEmptyInput() {
        XCTAssertEqual(
            SHA256.hash([UInt8]()).hex,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testABC() {
        XCTAssertEqual(
            SHA256.hash(Array("abc".utf8)).hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testTwoBlockMessage() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        XCTAssertEqual(
            SHA256.hash(message).hex,
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testFourHundredFortyEightBitMessage() {
        let message = Array(
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
                .utf8)
        XCTAssertEqual(
            SHA256.hash(message).hex,
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    func testOneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(
            SHA256.hash(message).hex,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testIncrementalFeedingMatchesOneShotAtEveryBoundary() {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = SHA256.hash(message)
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 299, 300] {
            var hasher = SHA256()
            hasher.update(Array(message[0..<split]))
            hasher.update(Array(message[split...]))
            XCTAssertEqual(hasher.finalize(), whole, "split at \(split)")
        }
        var bytewise = SHA256()
        for byte in message { bytewise.update(CollectionOfOne(byte)) }
        XCTAssertEqual(bytewise.finalize(), whole)
    }

    func testPaddingLengthsAroundTheBlockBoundary() {
        // 55 bytes fit one padded block, 56 need two: both must differ and be stable.
        let fiftyFive = [UInt8](repeating: 0x61, count: 55)
        let fiftySix = [UInt8](repeating: 0x61, count: 56)
        XCTAssertEqual(
            SHA256.hash(fiftyFive).hex,
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        XCTAssertEqual(
            SHA256.hash(fiftySix).hex,
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
    }

    func testDigestIsThirtyTwoBytes() {
        XCTAssertEqual(SHA256.hash(Array("x".utf8)).bytes.count, 32)
    }

    // The contiguous fast path (whole blocks hashed from the caller's storage) and the staged
    // path for other sequences must give the digests of the reference vectors.

    func testOneMillionAThroughANonContiguousSequence() {
        XCTAssertEqual(
            SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)).hex,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testSliceWithOffsetStartHashesOnlyItsBytes() {
        let padded = Array("xxabcyy".utf8)
        XCTAssertEqual(
            SHA256.hash(padded[2..<5]).hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testMixedContiguousAndStagedUpdatesMatchOneShot() {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = SHA256.hash(message)
        for _ in 0..<50 {
            var hasher = SHA256()
            var offset = 0
            while offset < message.count {
                let length = min(Int.random(in: 0...300, using: &generator), message.count - offset)
                let part = message[offset..<(offset + length)]
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: hasher.update(Array(part))
                case 1: hasher.update(part)
                default: hasher.update(part.lazy.map { $0 })
                }
                offset += length
            }
            XCTAssertEqual(hasher.finalize(), whole)
        }
    }
}
