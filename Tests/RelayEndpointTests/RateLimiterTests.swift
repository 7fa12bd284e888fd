import RelayEndpoint
import XCTest

/// The pacing of reports a peer can cause.
final class RateLimiterTests: XCTestCase {
    func testRateLimiterLetsABurstThroughThenCounts() {
        var limiter = RateLimiter(limit: 2, per: 1)
        XCTAssertEqual(limiter.admit(now: 10), .allow(suppressed: 0))
        XCTAssertEqual(limiter.admit(now: 10.1), .allow(suppressed: 0))
        XCTAssertEqual(limiter.admit(now: 10.2), .suppress)
        XCTAssertEqual(limiter.admit(now: 10.9), .suppress)
        XCTAssertEqual(limiter.suppressed, 2)
        XCTAssertEqual(limiter.admit(now: 11.0), .allow(suppressed: 2))
        XCTAssertEqual(limiter.admit(now: 11.5), .allow(suppressed: 0))
    }
}
