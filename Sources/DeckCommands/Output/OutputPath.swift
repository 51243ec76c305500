import ArgumentParsing
import FileSafety
import Foundation

/// What every writing command does with the outputs named on its command line, before any
/// work: refuse a name that can't be created, and sweep what killed runs of the same command
/// left behind.
enum OutputPath {
    /// Refuses an output file named as typed (before it becomes a URL, which drops a trailing
    /// `/`): a name ending in `/` (`archive -o newdir/` once wrote a file named `newdir`), a
    /// directory, and, under ``OverwritePolicy/never``, anything that exists there, a dangling
    /// symbolic link included (publishing never replaces it, and a writer that followed it
    /// would create its target). Exit 73 naming the path. The publish repeats the check
    /// atomically (``Publisher``), so of two writers one wins and the other gets 73 too.
    static func checkFile(_ path: String, overwrite: OverwritePolicy = .never) throws {
        do {
            try Publisher.checkDestination(path, policy: overwrite)
        } catch {
            throw CommandFailure(.cantCreate, path: path, reason: error.reason)
        }
    }

    /// The temporaries `deck` makes in `TMPDIR` and beside its outputs for its own work
    /// (`.deck-export.staging-…`, `.deck-archive.staging-…`): the base names begin with `deck-`.
    static func isToolTemporary(_ base: String) -> Bool { base.hasPrefix("deck-") }

    /// Removes what killed runs left (``Leftovers``): hidden temporaries of processes that no
    /// longer exist, owned by this user, made for `outputs` beside them (`.<name>.partial-…`,
    /// `.<name>.staging-…`) or for the tool's own work there and in `TMPDIR`. Nothing else is
    /// touched: not another program's files, not the temporaries of a running `deck`.
    static func sweepLeftovers(beside outputs: [String] = []) {
        Leftovers.sweepTemporaryDirectory(bases: isToolTemporary)
        for output in outputs where output != "-" {
            Leftovers.sweep(besideOutput: output, also: isToolTemporary)
        }
    }
}

/// Where an `-o` output goes: standard output (`-`, `/dev/stdout`), an existing stream that is
/// written in place and never replaced (a character device such as `/dev/null`, a named pipe),
/// or a file published whole under its name (replacing what is there only with `--force`).
enum OutputTarget: Equatable {
    case standardOutput
    case stream(String)
    case file(String)

    static func resolve(_ path: String) -> OutputTarget {
        if path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1" { return .standardOutput }
        var status = stat()
        if stat(path, &status) == 0 {
            let type = status.st_mode & S_IFMT
            if type == S_IFCHR || type == S_IFIFO { return .stream(path) }
        }
        return .file(path)
    }

    /// Whether the bytes go to a terminal (standard output that is one, or a terminal device).
    var isTerminal: Bool {
        switch self {
        case .standardOutput: return Terminal.current.stdout.isTerminal
        case .stream(let path):
            let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return isatty(descriptor) == 1
        case .file: return false
        }
    }

    /// Opens a stream for writing (no creating, no truncating a device).
    static func openStream(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure(.cantCreate, path: path, reason: "cannot open for writing: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// Runs `write` on a private path and copies what it wrote to the stream `path`.
    static func spool(to path: String, name: String, _ write: (URL) throws -> Void) throws {
        let spool: StagingDirectory
        do {
            spool = try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-spool")
        } catch {
            throw CommandFailure(.ioError, path: error.path, reason: error.reason)
        }
        defer { spool.remove() }
        let file = spool.url.appendingPathComponent(name)
        try write(file)
        let descriptor = try openStream(path)
        let out = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let input = FileHandle(forReadingAtPath: file.path) else {
            throw CommandFailure(.ioError, path: file.path, reason: "cannot read back the output")
        }
        defer { try? input.close() }
        do {
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try out.write(contentsOf: chunk) }
        } catch {
            throw CommandFailure(.ioError, path: path, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    /// Writes a file output through `write` (which publishes without replacing): straight to
    /// `path`, or with `force`, when something is there, under a staging name beside it and then
    /// over it atomically (a directory is never replaced).
    static func writeFile(_ path: String, force: Bool, _ write: (URL) throws -> Void) throws {
        var status = stat()
        guard force, lstat(path, &status) == 0 else { return try write(URL(fileURLWithPath: path)) }
        let name = (path as NSString).lastPathComponent
        let staging: StagingDirectory
        do {
            staging = try StagingDirectory(in: (path as NSString).deletingLastPathComponent, for: name)
        } catch {
            throw CommandFailure(.cantCreate, path: path, reason: error.reason)
        }
        defer { staging.remove() }
        let staged = staging.url.appendingPathComponent(name)
        try write(staged)
        do {
            try Publisher.publishFile(staged.path, at: path, policy: .replace)
        } catch {
            throw CommandFailure(.cantCreate, path: path, reason: error.reason)
        }
    }
}
