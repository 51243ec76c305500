import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Hostile packages from the generator (``HostileWorkspace``): links of every kind (store,
/// manifest, `.lock`, `Media/`, a media file; dangling and pointing outside), FIFOs as store,
/// manifest, lock and media file, a directory as a media file, and a traversal name in the
/// store's media table, each run through every command. The promises: the documented exit
/// status (65 where the command needs what is hostile, 0 where it does not), one clear
/// `deck: error:` line, no hang (a child is killed after a timeout), nothing read or written
/// outside the target (the canary folder is unchanged and no output holds its secret), no
/// leftovers in the output folder or the child's TMPDIR, and the input deck unchanged.
@Suite(.tags(.reliability))
struct HostilePackageTests {
    @Test("a hostile package gives each command its documented status and nothing outside it is read or written",
          arguments: HostileClass.allCases)
    func hostilePackage(_ hostile: HostileClass) throws {
        let workspace = try HostileWorkspace()
        try workspace.apply(hostile)
        let outside = workspace.outsideSnapshot()
        for command in HostileCommand.all {
            let before = workspace.packageSnapshot()
            let run = try workspace.run(command.arguments)
            let expected = command.expectedStatus(for: hostile)
            let label = "\(hostile) / \(command)"
            #expect(!run.timedOut, "\(label) hung")
            #expect(!run.signaled && run.status == expected, "\(label): expected exit \(expected), got \(run)")
            if run.status != 0 {
                #expect(run.hasOneClearErrorLine, "\(label): not one clear error line: \(run.stderr)")
            }
            #expect(workspace.outsideSnapshot() == outside, "\(label) changed something outside its target")
            if let output = command.output {
                let file = workspace.work.appendingPathComponent(output)
                var status = stat()
                let exists = lstat(file.path, &status) == 0
                #expect(exists == (run.status == 0), "\(label): output \(exists ? "present" : "absent") after \(run)")
                if exists, (status.st_mode & S_IFMT) == S_IFREG, let data = try? Data(contentsOf: file) {
                    #expect(data.range(of: Data(HostileWorkspace.secret.utf8)) == nil, "\(label): the output holds the canary's secret")
                }
            }
            #expect(workspace.leftovers(besides: run.status == 0 ? command.output : nil).isEmpty,
                    "\(label) left \(workspace.leftovers(besides: command.output))")
            if command.role != .writer || run.status != 0 {
                #expect(workspace.packageSnapshot() == before, "\(label) changed the input deck")
            }
            try workspace.clearOutputs()
        }
    }

    @Test("check reports each violation of a hostile package as an error on a line of its own")
    func checkReportsEachViolation() throws {
        let workspace = try HostileWorkspace()
        try workspace.apply(.mediaFileFIFO)
        // A second media file made a link, and a lock that is a link: three violations.
        let second = workspace.package.appendingPathComponent("Media").appendingPathComponent(workspace.mediaNames[1])
        try FileManager.default.removeItem(at: second)
        try FileManager.default.createSymbolicLink(atPath: second.path, withDestinationPath: workspace.canary.appendingPathComponent("secret.txt").path)
        let lock = workspace.package.appendingPathComponent(".lock")
        if FileManager.default.fileExists(atPath: lock.path) { try FileManager.default.removeItem(at: lock) }
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: workspace.canary.appendingPathComponent("made").path)
        let run = try workspace.run(["check", HostileWorkspace.deckName])
        #expect(run.status == 65 && !run.timedOut, "\(run)")
        let errors = run.stdout.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count == 3, "\(run.stdout)")
        #expect(errors.contains { $0.contains(workspace.mediaNames[0]) && $0.contains("FIFO") })
        #expect(errors.contains { $0.contains(workspace.mediaNames[1]) && $0.contains("symbolic link") })
        #expect(errors.contains { $0.contains(".lock") && $0.contains("symbolic link") })
        #expect(run.hasOneClearErrorLine, "\(run.stderr)")
    }

    @Test("a traversal name in the store's media table never reaches a path", arguments: ["check", "export-json-embed", "export-html", "export-apkg", "archive"])
    func traversalNameIsNamed(_ name: String) throws {
        let workspace = try HostileWorkspace()
        try workspace.apply(.traversalName)
        let command = try #require(HostileCommand.all.first { $0.name == name })
        let run = try workspace.run(command.arguments)
        #expect(run.status == 65, "\(run)")
        #expect((run.stdout + run.stderr).contains("is not a media file name"), "\(run)")
    }

    @Test("an archive holding links or special files is refused, and nothing is written outside it",
          arguments: HostileClass.allCases.filter(\.isArchivable))
    func hostileArchive(_ hostile: HostileClass) throws {
        let workspace = try HostileWorkspace()
        try workspace.apply(hostile)
        let archive = workspace.work.appendingPathComponent("hostile.tar.gz")
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/bsdtar")
        tar.arguments = ["-czf", archive.path, "-C", workspace.work.path, HostileWorkspace.deckName]
        tar.standardError = FileHandle.nullDevice
        try tar.run()
        tar.waitUntilExit()
        try #require(tar.terminationStatus == 0)
        try FileManager.default.createDirectory(at: workspace.output, withIntermediateDirectories: true)
        let outside = workspace.outsideSnapshot()
        for arguments in [["info", "hostile.tar.gz"], ["list", "hostile.tar.gz"], ["unarchive", "hostile.tar.gz", "-C", "out"]] {
            let run = try workspace.run(arguments)
            #expect(!run.timedOut && run.status == 65, "\(hostile) / \(arguments[0]): \(run)")
            #expect(run.hasOneClearErrorLine, "\(hostile) / \(arguments[0]): \(run.stderr)")
            #expect(workspace.outsideSnapshot() == outside, "\(hostile) / \(arguments[0]) wrote outside its target")
            #expect(workspace.leftovers(besides: nil).isEmpty, "\(hostile) / \(arguments[0]) left \(workspace.leftovers(besides: nil))")
        }
    }
}
