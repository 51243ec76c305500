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
