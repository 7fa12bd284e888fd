import Foundation
import XCTest

@testable import RelayCLI

/// A received file's naming on disk: relative to the folder opened at its creation, and never
/// replacing anything, with hard links or without.
/// Every step names the file from one directory descriptor (`openat`, `linkat`, `renameat`, `fstatat`),
/// so a folder moved away or replaced by a link meanwhile changes nothing. Without hard links (FAT, some
/// network shares) the name is first reserved by creating it empty with `O_EXCL`, and the `.part` is renamed
/// over that reservation alone: a file another writer made in between is never replaced, a dangling link
/// never followed. Before (issue 30, item 15): exists-then-rename, and every step rebuilt the path.
final class PartFileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "relay-partfile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: directory + "-moved")
    }

    private func listing(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    private static func candidate(_ attempt: Int) -> String { attempt == 0 ? "notes.txt" : "notes (\(attempt)).txt" }

    func testWithoutHardLinksTheNameIsReservedAndOnlyTheReservationIsRenamedOver() throws {
        let file = try PartFile.create(in: directory, candidate: Self.candidate).get()
        file.naming = .reserveThenRename
        XCTAssertNil(file.append(Array("ours".utf8)))
        // Another writer takes the first name while the file is being received.
        FileManager.default.createFile(atPath: directory + "/notes.txt", contents: Data("theirs".utf8))
        let path = try file.commit().get()
        XCTAssertEqual(path, directory + "/notes (1).txt")
        XCTAssertEqual(contents(directory + "/notes.txt"), Array("theirs".utf8), "never replaced")
        XCTAssertEqual(contents(path), Array("ours".utf8))
        XCTAssertEqual(listing(directory), ["notes (1).txt", "notes.txt"], "no part file or reservation left")
    }

    func testWithoutHardLinksADanglingLinkAtTheNameIsNeitherFollowedNorReplaced() throws {
        let file = try PartFile.create(in: directory, candidate: Self.candidate).get()
        file.naming = .reserveThenRename
        XCTAssertNil(file.append([1, 2, 3]))
        let target = directory + "-moved"
        try FileManager.default.createSymbolicLink(atPath: directory + "/notes.txt", withDestinationPath: target)
        XCTAssertEqual(try file.commit().get(), directory + "/notes (1).txt")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the link was not followed")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/notes.txt"), target)
    }

    func testTheFileStaysInTheFolderOpenedAtItsCreation() throws {
        for naming in [PartFile.Naming.hardLink, .reserveThenRename] {
            let file = try PartFile.create(in: directory, candidate: Self.candidate).get()
            file.naming = naming
            XCTAssertNil(file.append(Array("bytes".utf8)))
            // The folder is moved away and its path becomes a link to somewhere else meanwhile.
            let elsewhere = directory + "-elsewhere"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }
            try FileManager.default.moveItem(atPath: directory, toPath: directory + "-moved")
            try FileManager.default.createSymbolicLink(atPath: directory, withDestinationPath: elsewhere)
            XCTAssertNoThrow(try file.commit().get())
            XCTAssertEqual(listing(directory + "-moved"), ["notes.txt"], "\(naming)")
            XCTAssertEqual(contents(directory + "-moved/notes.txt"), Array("bytes".utf8))
            XCTAssertEqual(listing(elsewhere), [], "nothing written through the swapped path (\(naming))")
            try FileManager.default.removeItem(atPath: directory)
            try FileManager.default.moveItem(atPath: directory + "-moved", toPath: directory)
            try FileManager.default.removeItem(atPath: directory + "/notes.txt")
        }
    }
}
