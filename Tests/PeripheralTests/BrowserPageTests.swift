import XCTest

@testable import relay_peripheral

/// Where relay-peripheral's start-up line says the browser page is.
final class BrowserPageTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("relay-page-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/usr/bin", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/usr/bin/relay-peripheral", contents: Data())
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func testBesideAnInstalledProgramItIsInShareRelayWeb() throws {
        try FileManager.default.createDirectory(
            atPath: root + "/usr/share/relay/web", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/usr/share/relay/web/relay.html", contents: Data("<html>".utf8))
        let real = try XCTUnwrap(realpath(root, nil).map { String(cString: $0) })
        XCTAssertEqual(
            BrowserPage.located(executable: root + "/usr/bin/relay-peripheral"),
            real + "/usr/share/relay/web/relay.html")
    }

    func testWithoutThePageThereIsNoLine() {
        XCTAssertNil(BrowserPage.located(executable: root + "/usr/bin/relay-peripheral"))
        XCTAssertNil(BrowserPage.located(executable: root + "/usr/bin/no-such-program"))
    }

    func testABuildInTheRepositoryFindsItsWebFolder() throws {
        // This test runs from .build/<triple>/debug of the repository: its web/relay.html.
        let page = try XCTUnwrap(BrowserPage.located())
        XCTAssertTrue(page.hasSuffix("/web/relay.html"), page)
        XCTAssertTrue(FileManager.default.fileExists(atPath: page))
        let repository = String(page.dropLast("/web/relay.html".count))
        XCTAssertTrue(FileManager.default.fileExists(atPath: repository + "/Package.swift"))
    }
}
