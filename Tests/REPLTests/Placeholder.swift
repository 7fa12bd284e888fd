import XCTest
final class REPLTestsPlaceholder: XCTestCase { func testBuilds() {} }
