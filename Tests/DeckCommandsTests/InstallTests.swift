import Foundation
import Testing

/// `make install-files PREFIX=…` with the debug build: the binary, man pages that `man`
/// finds, and completion scripts generated from the same declarations as --help.
@Suite struct InstallTests {
    @Test func installIntoATemporaryPrefix() throws {
        let play = try Playground()
        let prefix = play.url.appendingPathComponent("prefix")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["make", "--no-print-directory", "-C", DeckProcess.packageRoot.path, "install-files",
                          "PREFIX=\(prefix.path)", "DECK_BIN=\(DeckProcess.executable.path)"]
        let errors = Pipe()
        make.standardOutput = FileHandle.nullDevice
        make.standardError = errors
        try make.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        make.waitUntilExit()
        #expect(make.terminationStatus == 0, "\(errorText)")
        let installed = prefix.appendingPathComponent("bin/deck")
        #expect(FileManager.default.isExecutableFile(atPath: installed.path))
        let version = try DeckProcess.run(["--version"], in: play.url)
        #expect(version.status == 0)
        #expect(version.stdout.contains("sampledeck format: reads and writes version "), "deck --version names the format versions")
        for page in ["man1/deck.1", "man1/deck-list.1", "man1/deck-open.1", "man5/sampledeck.5"] {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/man/" + page).path), "\(page)")
        }
        // man finds the page through MANPATH (when a man program is there to ask).
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let man = Process()
            man.executableURL = URL(fileURLWithPath: "/usr/bin/man")
            man.arguments = ["-w", "deck"]
            man.environment = ["MANPATH": prefix.appendingPathComponent("share/man").path, "PATH": "/usr/bin:/bin"]
            let out = Pipe()
            man.standardOutput = out
            man.standardError = FileHandle.nullDevice
            try man.run()
            let found = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            man.waitUntilExit()
            #expect(found.contains(prefix.path), "man -w deck: \(found)")
        }
        let bash = prefix.appendingPathComponent("share/bash-completion/completions/deck")
        let zsh = prefix.appendingPathComponent("share/zsh/site-functions/_deck")
        let fish = prefix.appendingPathComponent("share/fish/vendor_completions.d/deck.fish")
        for script in [bash, zsh, fish] {
            let text = try String(contentsOf: script, encoding: .utf8)
            let fish = script.pathExtension == "fish"
            for word in ["list", "import", fish ? "-l where" : "--where", fish ? "-l no-wait" : "--no-wait", "table tsv json"] {
                #expect(text.contains(word), "\(script.lastPathComponent) lacks \(word)")
            }
        }
        // The bash script completes subcommands and an option's values.
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-c", """
            source '\(bash.path)'
            COMP_WORDS=(deck li); COMP_CWORD=1; _deck; echo "${COMPREPLY[*]}"
            COMP_WORDS=(deck list D --format t); COMP_CWORD=4; _deck; echo "${COMPREPLY[*]}"
            COMP_WORDS=(deck add D --no-w); COMP_CWORD=3; _deck; echo "${COMPREPLY[*]}"
            """]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        check.waitUntilExit()
        #expect(lines == ["list", "table tsv", "--no-wait"], "\(lines)")
    }
}
