import XCTest
final class CentralTestsPlaceholder: XCTestCase { func testBuilds() {} }
