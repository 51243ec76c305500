/// What `deck-bench --help` prints: the usage, the options, the sections `--only` and
/// `--skip` take, and the child modes.
enum BenchUsage {
    /// Every section of the suite, in the order it runs, with what it measures.
    static let sections: [(name: String, what: String)] = [
        ("persistence", "insert+save and fetch of 100,000 cards, indexed query on 1,000,000, vs the raw C API"),
        ("macros", "the same with @Model-declared models"),
        ("enumerate", "ModelContext.enumerate of 1,000,000 cards, peak memory"),
        ("migration", "a lightweight migration adding a column to 1,000,000 rows"),
        ("scaling", "every operation at 10,000, 100,000 and 1,000,000 cards (the curves; slow)"),
        ("csv", "deck import of a 100,000-row CSV vs sqlite3 .import (and with tags)"),
        ("spreadsheet-csv", "deck import of a 100,000-row spreadsheet CSV (semicolons, header) vs sqlite3 .import"),
        ("export", "deck export --format apkg of 100,000 cards vs genanki"),
        ("import", "deck import of 100,000-note packages (current Anki's, genanki's) vs Anki; peak memory on 1,000,000 notes"),
        ("size", "the bytes on disk of 100,000 basic notes beside current Anki's collection of them"),
        ("archive", "deck archive vs bsdtar"),
        ("convert", "deck convert --jobs 2 vs --jobs 1"),
        ("open", "open and count a 1,000,000-card deck vs sqlite3; enumerate its notes, peak memory"),
        ("list", "deck list --format tsv of 100,000 cards vs sqlite3; deck list | head -1 on 1,000,000"),
        ("search", "the first deck search after importing 1,000,000 cards; search medians vs sqlite3 FTS5"),
        ("edit", "deck edit --where of 10,000 notes vs sqlite3 UPDATE"),
        ("tags", "20,000 tags on one card vs the raw C API; deck add with 20,000 --tag options"),
        ("archive-formats", "deck archive of a deck with media in zip, tar.gz, tar.zst vs bsdtar"),
        ("study", "one answer through the scheduler; today's queue of a 1,000,000-card deck"),
    ]

    static var text: String {
        let width = (sections.map(\.name.count).max() ?? 0) + 2
        let list = sections.map { "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.what }.joined(separator: "\n")
        return """
            OVERVIEW: SampleDeck's benchmarks: every bar of MISSION.md and the issues against its reference, side by side in one run.

            USAGE: deck-bench [--quick] [--runs <n>] [--judge cpu|wall] [--only <section,…>] [--skip <section,…>] [--report-dir <dir>]
                   deck-bench --help

            OPTIONS:
              --quick               small sizes, one run each; the report goes under .build/bench-quick
              --runs <n>            runs per comparison, medians reported (default 5, 1 with --quick)
              --judge cpu|wall      judge every ratio bar on this time (the parallel speed-up is always wall)
              --only <section,…>    run only these sections
              --skip <section,…>    run all but these sections
              --report-dir <dir>    where PERFORMANCE.md and perf/ are written (default docs; a partial run rewrites it too)
              --tagged-timeout <s>  the time limit of the tagged CSV import (default 60)
              -h, --help            print this and exit

            SECTIONS:
            \(list)

            CHILD MODES (run by the suite, or alone for profiling):
              deck-bench enumerate-memory <store>          enumerate a store, print time and peak
              deck-bench op insert|fetch|query <n> <store> one persistence operation, timed
              deck-bench open-count <deck>                 open a deck read-only, print its card count
              deck-bench enumerate-notes <deck>            enumerate a deck's notes, print time, peak and count
              deck-bench schema-build                      build format v2's schema twice, print wall and CPU of each
              deck-bench profile insert|fetch              one operation alone, for perf/callgrind
              deck-bench profile-csv <file.csv>            a CSV import into a new deck, in process
              deck-bench migration [rows]                  the lightweight migration alone
              deck-bench apkg-read <package>               the reading side of an apkg import, timed per step
              deck-bench profile-apkg <package>            an apkg import into a new deck, in process, for callgrind
              deck-bench study-deck <cards> <deck>         the study section's deck, kept; prints review cards due today
              deck-bench profile-answer <deck> <n>         n answers through the library on such a deck, per answer

            ENVIRONMENT:
              DECK_BENCH_TMP   where the scratch folder and the input cache (deck-bench-cache: CSVs, decks, Anki
                               packages by size, rebuilt when the deck binary changes) are made (default: the
                               temporary folder)

            Needs the release deck binary beside this one (swift build -c release), sqlite3, bsdtar, and for export
            and import python3 with genanki and anki (make pydeps).
            """
    }
}
