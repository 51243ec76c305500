import Foundation
import Testing

/// Extreme values in every column (issue 17, "no traps on any input"): a deck store written
/// with SQL after `deck create` and `deck add`, and Anki packages whose collection holds them.
/// The promises: no command dies of a signal (an overflow or a Double→Int conversion traps with
/// SIGILL/SIGTRAP); values at the limits of docs/FORMAT.md's "Value ranges" work everywhere and
/// read back; values beyond them are refused with exit 65 and one `deck: error:` line naming
/// the field, by importers and by every reader of the store.
@Suite(.tags(.reliability))
struct ExtremeValueTests {
    /// Every command that reads a whole deck, as run on `X.sampledeck` (outputs into `out/`).
    static let commands: [[String]] = [
        ["list", "X.sampledeck"], ["list", "X.sampledeck", "--json"], ["list", "X.sampledeck", "--sort", "created:desc"],
        ["search", "X.sampledeck", "four"], ["info", "X.sampledeck"], ["info", "X.sampledeck", "--json"], ["check", "X.sampledeck"],
        ["export", "X.sampledeck", "-o", "out/x.csv"], ["export", "X.sampledeck", "-o", "out/x.tsv", "--format", "tsv"],
        ["export", "X.sampledeck", "-o", "out/x.json", "--format", "json"],
        ["export", "X.sampledeck", "-o", "out/embedded.json", "--format", "json", "--embed-media"],
        ["export", "X.sampledeck", "-o", "out/x.html", "--format", "html"], ["export", "X.sampledeck", "-o", "out/x.apkg", "--format", "apkg"],
        ["archive", "X.sampledeck", "-o", "out/x.sampledeck.zip"],
        ["convert", "X.sampledeck", "--to", "apkg", "--out-dir", "out"],
        ["due", "X.sampledeck"], ["due", "X.sampledeck", "--json"],
    ]

    /// Year 1 and the last millisecond of year 9999, the limits of a date (seconds since 1970).
    static let firstDate = "-62135596800", lastDate = "253402300799.999"
    static let huge = String(repeating: "huge ", count: 200_000)

    /// Values at the limits of every column (format version 2): each command must succeed on them.
    static let atTheLimits = """
        UPDATE Note SET created = \(firstDate), modified = \(lastDate) WHERE pk = 1;
        UPDATE Note SET created = \(lastDate), modified = \(firstDate) WHERE pk = 2;
        UPDATE Card SET created = \(firstDate), modified = \(lastDate), type = 2, queue = 2, due = 2000000, interval = 2147483647,
          easeFactor = 100000, repetitions = 2147483647, lapses = 2147483647 WHERE pk = 1;
        UPDATE Card SET type = 2, queue = 2, due = -700000, interval = 0, easeFactor = 0 WHERE pk = 2;
        UPDATE Card SET pk = 9223372036854775807 WHERE note = 4 AND ordinal = 1;
        INSERT INTO Review (pk, time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES
          (9223372036854775807, -62135596800000, 4, -2147483648, 0, 0, 86400000, 1, 1), (2, 253402300799999, 0, 2147483647, 0, 0, 0, 1, 1),
          (3, 0, 1, 0, 0, 0, 0, 1, 9223372036854775807);
        """

    /// Values beyond the ranges of docs/FORMAT.md, one column at a time: (what check names, SQL).
    static let beyond: [(column: String, sql: String)] = [
        ("Card 1.interval", "UPDATE Card SET interval = -1 WHERE pk = 1"),
        ("Card 1.type", "UPDATE Card SET type = 9 WHERE pk = 1"),
        ("Card 1.queue", "UPDATE Card SET queue = -9223372036854775808 WHERE pk = 1"),
        ("Card 1.flag", "UPDATE Card SET flag = 9223372036854775807 WHERE pk = 1"),
        ("Card 1.repetitions", "UPDATE Card SET repetitions = -9223372036854775808 WHERE pk = 1"),
        ("Card 1.due", "UPDATE Card SET type = 2, queue = 2, due = 'soon' WHERE pk = 1"),
        ("Card 1.created", "UPDATE Card SET created = 'yesterday' WHERE pk = 1"),
        ("Note 1.modified", "UPDATE Note SET modified = x'00' WHERE pk = 1"),
        ("Review 99.rating", "INSERT INTO Review (pk, time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (99, 0, 9223372036854775807, 1, 0, 0, 1, 1, 1)"),
        ("Review 98.duration", "INSERT INTO Review (pk, time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (98, 0, 1, 1, 0, 0, -1, 1, 1)"),
        ("Review 97.kind", "INSERT INTO Review (pk, time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (97, 0, 1, 1, 0, 0, 1, 9, 1)"),
        ("Review 96.time", "INSERT INTO Review (pk, time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (96, 9223372036854775807, 1, 1, 0, 0, 1, 1, 1)"),
        ("Review 95.lastInterval", "INSERT INTO Review (pk, time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (95, 0, 1, 1, -9223372036854775808, 0, 1, 1, 1)"),
        ("Card 1.interval", "UPDATE Card SET interval = 2147483648 WHERE pk = 1"),
        ("Card 1.lapses", "UPDATE Card SET lapses = 9223372036854775807 WHERE pk = 1"),
        ("Card 1.easeFactor", "UPDATE Card SET easeFactor = 100001 WHERE pk = 1"),
        ("Card 1.ordinal", "UPDATE Card SET ordinal = -1 WHERE pk = 1"),
        ("Card 1.due", "UPDATE Card SET type = 2, queue = 2, due = 9223372036854775807 WHERE pk = 1"),
        ("Card 1.lastReview", "UPDATE Card SET lastReview = -9223372036854775808 WHERE pk = 1"),
        ("Card 1.originalPosition", "UPDATE Card SET originalPosition = -1 WHERE pk = 1"),
        ("Card 1.modified", "UPDATE Card SET modified = 1e300 WHERE pk = 1"),
        ("Note 2.created", "UPDATE Note SET created = -62135596801 WHERE pk = 2"),
        ("DeckInfo 1.dayZero", "UPDATE DeckInfo SET dayZero = 9223372036854775807"),
        ("Preset 1.startingEase", "UPDATE Preset SET startingEase = 100001"),
        ("Preset 1.maximumInterval", "UPDATE Preset SET maximumInterval = 2147483648"),
        ("Preset 1.hardMultiplier", "UPDATE Preset SET hardMultiplier = 1e308"),
        ("Preset 1.learningSteps", "UPDATE Preset SET learningSteps = '[1, 1e9]'"),
        ("Preset 1.relearningSteps", "UPDATE Preset SET relearningSteps = '[0]'"),
    ]

    /// A deck of three tagged Basic notes and a reversed one in a fresh workspace, then `sql` run on its store.
    static func workspace(_ sql: String) throws -> HostileWorkspace {
        let workspace = try HostileWorkspace()
        for arguments in [["create", "X.sampledeck"],
                          ["add", "X.sampledeck", "--front", "one", "--back", "x", "--tag", "a"],
                          ["add", "X.sampledeck", "--front", "two", "--back", "x", "--tag", "b", "--tag", "c"],
                          ["add", "X.sampledeck", "--front", "three", "--back", "x", "--tag", "c"],
                          ["add", "X.sampledeck", "--kind", "reversible", "--front", "four", "--back", "y"]] {
            let run = try workspace.run(arguments)
            try #require(run.status == 0, "\(arguments): \(run)")
        }
        try sqlite(workspace.work.appendingPathComponent("X.sampledeck/Deck.sqlite"), sql)
        return workspace
    }

    static func sqlite(_ store: URL, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [store.path]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "sqlite3: \(String(decoding: message, as: UTF8.self))")
    }

    @Test("values at the limits of every column work in every command and read back")
    func valuesAtTheLimits() throws {
        let workspace = try Self.workspace(Self.atTheLimits)
        for arguments in Self.commands {
            let run = try workspace.run(arguments)
            #expect(!run.signaled && !run.timedOut, "\(arguments): \(run)")
            #expect(run.status == 0, "\(arguments): \(run)")
        }
        // What the tool exported it imports again: every card, the extremes kept.
        for (file, create) in [("out/x.csv", "C.sampledeck"), ("out/x.json", "J.sampledeck"), ("out/x.apkg", "A.sampledeck")] {
            let run = try workspace.run(["import", create, file, "--create"])
            #expect(!run.signaled && run.status == 0, "import \(file): \(run)")
        }
        let exported = try String(contentsOf: workspace.work.appendingPathComponent("out/x.json"), encoding: .utf8)
        // Dates as Unix seconds, exactly as stored (0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z).
        #expect(exported.contains("-62135596800") && exported.contains("253402300799.999"))
        let reexported = try workspace.run(["export", "J.sampledeck", "-o", "out/j.json", "--format", "json"])
        #expect(reexported.status == 0, "\(reexported)")
        // Restored whole into the new deck: the same file again.
        let again = try String(contentsOf: workspace.work.appendingPathComponent("out/j.json"), encoding: .utf8)
        #expect(again == exported)
        // The largest card id leaves no key for a new card: refused, not an overflow trap, and
        // the refused save leaves the store closed as it was (no -wal or -shm beside it).
        let add = try workspace.run(["add", "X.sampledeck", "--front", "new", "--back", "card"])
        #expect(!add.signaled && add.status == 65 && add.hasOneClearErrorLine, "\(add)")
        let package = try FileManager.default.contentsOfDirectory(atPath: workspace.work.appendingPathComponent("X.sampledeck").path)
        #expect(!package.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") || $0.hasSuffix("-journal") }, "\(package)")
        // An answer needs a review row, and Review's largest key is Int64.max: refused the same way.
        let review = try workspace.run(["review", "X.sampledeck", "1", "good"])
        #expect(!review.signaled && review.status == 65 && review.hasOneClearErrorLine, "\(review)")
        #expect(review.stderr.contains("no key is left"), "\(review.stderr)")
        let after = try FileManager.default.contentsOfDirectory(atPath: workspace.work.appendingPathComponent("X.sampledeck").path)
        #expect(!after.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") || $0.hasSuffix("-journal") }, "\(after)")
    }

    /// Version 2's readers apply `check`'s value rules to what they read: an export and, for note
    /// and card columns, a listing refuse the deck with exit 65 and one line naming the deck,
    /// the row and the column. `due` checks the settings and the cards it lists with their notes,
    /// as they stream (it reads no review rows, nor a card that isn't due).
    @Test("a value beyond its column's range: check, the exports, list and due of what it lists name the deck, row and column", arguments: beyond.indices)
    func valueBeyondItsRange(_ index: Int) throws {
        let (column, sql) = Self.beyond[index]
        let workspace = try Self.workspace(sql)
        var readers = [["export", "X.sampledeck", "-o", "out/x.csv"], ["export", "X.sampledeck", "-o", "out/x.apkg", "--format", "apkg"]]
        if column.hasPrefix("Note ") || column.hasPrefix("Card ") { readers.append(["list", "X.sampledeck"]) }
        // Card 1 is no longer due (an unknown queue, a due value that is no day) or the row is a review: not
        // read by due, which lists the other cards; otherwise it reads the row and refuses it.
        let unlisted = column.hasPrefix("Review ") || sql.contains("queue = -9223372036854775808") || sql.contains("due = 'soon'")
            || sql.contains("due = 9223372036854775807")
        if unlisted {
            for arguments in [["due", "X.sampledeck"], ["due", "X.sampledeck", "--json"]] {
                let run = try workspace.run(arguments)
                #expect(!run.signaled && run.status == 0, "\(sql): \(arguments): \(run)")
                let listsCardOne = run.stdout.hasPrefix("1\t") || run.stdout.contains("\n1\t") || run.stdout.contains("{\"card\": 1,")
                #expect(run.stdout.contains("2\t") || run.stdout.contains("{\"card\": 2,"), "\(sql): \(arguments): \(run.stdout)")
                #expect(listsCardOne != column.hasPrefix("Card 1."), "\(sql): \(arguments): \(run.stdout)")
            }
        } else {
            readers.append(["due", "X.sampledeck"])
        }
        // An answer checks the rows it reads (the settings, the card's note and its cards), not the deck:
        // card 1 for its own columns, note 1's and the deck's; card 2 for note 2's.
        if column.hasPrefix("Card 1.") || column.hasPrefix("Note 1.") || column.hasPrefix("DeckInfo") {
            readers.append(["review", "X.sampledeck", "1", "good"])
        } else if column.hasPrefix("Note 2.") {
            readers.append(["review", "X.sampledeck", "2", "good"])
        }
        for arguments in readers {
            let run = try workspace.run(arguments)
            #expect(!run.signaled && run.status == 65 && run.hasOneClearErrorLine, "\(sql): \(arguments): \(run)")
            #expect(run.stderr.contains("X.sampledeck") && run.stderr.contains("\(column) ="), "\(sql): \(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.work.appendingPathComponent("out/x.csv").path), "nothing exported")
        let check = try workspace.run(["check", "X.sampledeck"])
        #expect(check.status == 65 && check.stdout.contains("\(column) ="), "\(sql): \(check)")
    }

    /// `deck review` reads one card's rows through indexes: a bad value in a sibling is refused,
    /// one in an unrelated card is not read and the answer is saved.
    @Test("deck review checks the answered card, its note and its siblings, not the whole deck")
    func reviewChecksTheRowsItReads() throws {
        // Cards 4 and 5 are the two cards of the reversible note 4.
        let workspace = try Self.workspace("UPDATE Card SET interval = -1 WHERE pk = 5")
        let sibling = try workspace.run(["review", "X.sampledeck", "4", "good"])
        #expect(!sibling.signaled && sibling.status == 65 && sibling.hasOneClearErrorLine, "\(sibling)")
        #expect(sibling.stderr.contains("Card 5.interval ="), "\(sibling.stderr)")
        let unrelated = try workspace.run(["review", "X.sampledeck", "1", "good", "--json"])
        #expect(unrelated.status == 0 && unrelated.stdout.contains("\"card\": 1"), "\(unrelated)")
        let study = try workspace.run(["study", "X.sampledeck"], input: "\n3\n\n3\n\n3\n\n3\n\n3\n")
        #expect(!study.signaled && study.status == 65 && study.stderr.contains("Card 5.interval ="), "\(study)")
    }

    @Test("every command on a store holding every value beyond its range: refused or done, never a signal")
    func everyCommandOnValuesBeyond() throws {
        let workspace = try Self.workspace(Self.beyond.map(\.sql).joined(separator: ";\n") + ";")
        for arguments in Self.commands + [["add", "X.sampledeck", "--front", "new", "--back", "card"], ["review", "X.sampledeck", "1", "good"]] {
            let run = try workspace.run(arguments)
            #expect(!run.signaled && !run.timedOut, "\(arguments): \(run)")
            // convert reports each input and exits 1 when one failed; search exits 1 when nothing matches.
            let allowed: Set<Int32> = ["convert", "search"].contains(arguments[0]) ? [0, 1, 65] : [0, 65]
            #expect(allowed.contains(run.status), "\(arguments): \(run)")
            if run.status == 65 { #expect(run.hasOneErrorLine, "\(arguments): \(run.stderr)") }
        }
    }
    /// Anki packages made from `Fixtures/anki/genanki-legacy.apkg` with one column changed:
    /// (name, SQL on its collection, the field an import must name, or nil when it must import).
    /// Its cards become review cards with one review each first, so every column is read.
    static let ankiVariants: [(name: String, sql: String, field: String?)] = [
        ("base", "", nil),
        ("card-id-max", "UPDATE cards SET id = 9223372036854775807 WHERE id = (SELECT max(id) FROM cards)", nil),
        ("note-id-min", "UPDATE notes SET id = -9223372036854775808 WHERE id = (SELECT min(id) FROM notes)", nil),
        ("note-id-max", "UPDATE notes SET id = 9223372036854775807 WHERE id = (SELECT max(id) FROM notes)", nil),
        ("odid-missing", "UPDATE cards SET odid = -1", nil),
        ("crt-zero", "UPDATE col SET crt = 0", nil),
        ("ivl-text", "UPDATE cards SET ivl = 'many'", nil),
        ("fields-huge", "UPDATE notes SET flds = flds || char(31) || replace(hex(zeroblob(500000)), '0', 'x')", nil),
        ("crt-max", "UPDATE col SET crt = 9223372036854775807", "col.crt"),
        ("crt-negative", "UPDATE col SET crt = -1", "col.crt"),
        ("ivl-max", "UPDATE cards SET ivl = 9223372036854775807", "cards.ivl"),
        ("ivl-min", "UPDATE cards SET ivl = -9223372036854775808", "cards.ivl"),
        ("ivl-real", "UPDATE cards SET ivl = 1e300", "cards.ivl"),
        ("due-max", "UPDATE cards SET due = 9223372036854775807", "cards.due"),
        ("due-min", "UPDATE cards SET due = -9223372036854775808", "cards.due"),
        ("factor-negative", "UPDATE cards SET factor = -1", "cards.factor"),
        ("factor-max", "UPDATE cards SET factor = 9223372036854775807", "cards.factor"),
        ("reps-negative", "UPDATE cards SET reps = -1", "cards.reps"),
        ("lapses-max", "UPDATE cards SET lapses = 9223372036854775807", "cards.lapses"),
        ("card-mod-max", "UPDATE cards SET mod = 9223372036854775807", "cards.mod"),
        ("note-mod-max", "UPDATE notes SET mod = 9223372036854775807", "notes.mod"),
        ("note-mod-min", "UPDATE notes SET mod = -9223372036854775808", "notes.mod"),
        ("revlog-id-max", "UPDATE revlog SET id = 9223372036854775807 WHERE id = (SELECT max(id) FROM revlog)", "revlog.id"),
        ("revlog-id-before-year-1", "UPDATE revlog SET id = -62135596800001 WHERE id = (SELECT min(id) FROM revlog)", "revlog.id"),
        ("revlog-ease", "UPDATE revlog SET ease = 9223372036854775807", "revlog.ease"),
        ("revlog-ivl", "UPDATE revlog SET ivl = -9223372036854775808", "revlog.ivl"),
        ("revlog-lastIvl", "UPDATE revlog SET lastIvl = 9223372036854775807", "revlog.lastIvl"),
        ("revlog-time-max", "UPDATE revlog SET time = 9223372036854775807", "revlog.time"),
        ("revlog-time-negative", "UPDATE revlog SET time = -1", "revlog.time"),
        // Columns the deck stores since the import keeps every card's full state (issue 15):
        // what Anki never writes is refused, naming the column.
        ("flags-max", "UPDATE cards SET flags = 9223372036854775807", "cards.flags"),
        ("left-min", "UPDATE cards SET left = -9223372036854775808", "cards.left"),
        ("odue-max", "UPDATE cards SET odue = 9223372036854775807, odid = -1", "cards.odue"),
        ("type-unknown", "UPDATE cards SET type = 99", "cards.type"),
        ("queue-unknown", "UPDATE cards SET queue = -99", "cards.queue"),
        ("revlog-type", "UPDATE revlog SET type = 9223372036854775807", "revlog.type"),
        ("revlog-factor-min", "UPDATE revlog SET factor = -9223372036854775808", "revlog.factor"),
        ("card-data", "UPDATE cards SET data = '{\"d\": 99}'", "cards.data (d)"),
    ]

    /// Writes each of ``ankiVariants`` as `<name>.apkg` into `folder`, and as `<name>.colpkg` (a
    /// collection package as Anki 2.1 before 2.1.50 exported it: `collection.anki21` and the media), in one Python process.
    static func writeAnkiVariants(into folder: URL) throws {
        let fixture = DeckBinary.packageRoot.appendingPathComponent("Fixtures/anki/genanki-legacy.apkg")
        let variants = try JSONSerialization.data(withJSONObject: ankiVariants.map { [$0.name, $0.sql] })
        let script = """
            import json, os, sqlite3, sys, zipfile
            fixture, folder = sys.argv[1], sys.argv[2]
            source = zipfile.ZipFile(fixture)
            setup = (
                "UPDATE cards SET type = 2, queue = 2, due = 100, ivl = 10, factor = 2500, reps = 3, lapses = 1;"
                "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                " SELECT 1700000000000 + id % 1000000, id, -1, 3, 10, 4, 2500, 6000, 1 FROM cards;")
            for name, sql in json.loads(sys.stdin.read()):
                path = os.path.join(folder, name + '.anki2')
                with open(path, 'wb') as f:
                    f.write(source.read('collection.anki2'))
                db = sqlite3.connect(path)
                db.executescript(setup)
                if sql:
                    db.executescript(sql)
                db.commit()
                db.close()
                for ext, collection in (('.apkg', 'collection.anki2'), ('.colpkg', 'collection.anki21')):
                    with zipfile.ZipFile(os.path.join(folder, name + ext), 'w') as out:
                        for entry in source.namelist():
                            if entry == 'collection.anki2':
                                out.write(path, collection)
                            else:
                                out.writestr(entry, source.read(entry))
                os.remove(path)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, fixture.path, folder.path]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(variants)
        try input.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3: \(String(decoding: message, as: UTF8.self))")
    }

    @Test("an Anki collection with extreme values in any column imports, or is refused naming the column; never a trap")
    func ankiCollectionWithExtremeValues() throws {
        let workspace = try HostileWorkspace()
        try Self.writeAnkiVariants(into: workspace.work)
        for (name, sql, field) in Self.ankiVariants {
            // The collection package: the same promises (its deck is only imported and checked).
            let collection = try workspace.run(["import", "\(name)-colpkg.sampledeck", "\(name).colpkg", "--create"])
            #expect(!collection.signaled && !collection.timedOut, "\(name).colpkg (\(sql)): \(collection)")
            if let field {
                #expect(collection.status == 65 && collection.hasOneClearErrorLine && collection.stderr.contains("\(name).colpkg")
                        && collection.stderr.contains(field), "\(name).colpkg (\(sql)): \(collection)")
            } else {
                #expect(collection.status == 0, "\(name).colpkg (\(sql)): \(collection)")
                let check = try workspace.run(["check", "\(name)-colpkg.sampledeck"])
                #expect(!check.signaled && check.status == 0, "\(name).colpkg: \(check)")
            }

            let deck = "\(name).sampledeck"
            let run = try workspace.run(["import", deck, "\(name).apkg", "--create"])
            #expect(!run.signaled && !run.timedOut, "\(name) (\(sql)): \(run)")
            if let field {
                #expect(run.status == 65 && run.hasOneClearErrorLine, "\(name) (\(sql)): \(run)")
                #expect(run.stderr.contains("\(name).apkg") && run.stderr.contains(field) && run.stderr.contains("out of range"),
                        "\(name): \(run.stderr)")
                continue
            }
            #expect(run.status == 0, "\(name) (\(sql)): \(run)")
            // What was accepted exports everywhere without a trap.
            for arguments in [["export", deck, "-o", "out/\(name).json", "--format", "json"],
                              ["export", deck, "-o", "out/\(name).apkg", "--format", "apkg"],
                              ["export", deck, "-o", "out/\(name).csv"], ["list", deck, "--json"], ["check", deck], ["due", deck]] {
                let after = try workspace.run(arguments)
                #expect(!after.signaled && after.status == 0, "\(name): \(arguments): \(after)")
            }
        }
    }
}

extension ExtremeValueTests {
    /// Crafted packages from `anki-current.apkg` (its collection in `collection.anki21b`): every
    /// preset's starting ease (`deck_config` protobuf field 11, a float, read ×1000) set to `ease`,
    /// then `sql` run on the collection: (name, ease, SQL, the field a refusal names or nil).
    /// 1e30 and an infinity trapped in the reader before it saturated (RELIABILITY.md, bug 14);
    /// NaN reads as 0, as Anki's `as u32` gives; 100 is the largest ease the import accepts
    /// (100,000 permille, a card's largest: an ease of 2,147,483 was accepted before, and the first
    /// answer of a new card wrote it to the card, which check and every export then refused).
    static let easeVariants: [(name: String, ease: String, sql: String, field: String?)] = [
        ("ease-1e30", "1e30", "", "deck_config.new.initialFactor"),
        ("ease-infinite", "inf", "", "deck_config.new.initialFactor"),
        ("ease-negative-infinite", "-inf", "", "deck_config.new.initialFactor"),
        ("ease-negative", "-1", "", "deck_config.new.initialFactor"),
        ("ease-beyond-int32", "3e6", "", "deck_config.new.initialFactor"),
        ("ease-beyond-a-card's", "100.001", "", "deck_config.new.initialFactor"),
        ("ease-nan", "nan", "UPDATE cards SET type = 2, queue = 2, due = 10, ivl = 100, factor = 100000 WHERE id = (SELECT min(id) FROM cards)", nil),
        ("ease-largest", "100", "UPDATE cards SET type = 2, queue = 2, due = 10, ivl = 2147483647, factor = 100000 WHERE id = (SELECT min(id) FROM cards)", nil),
        ("ease-zero", "0", "UPDATE cards SET type = 2, queue = 2, due = 10, ivl = 1, factor = 0 WHERE id = (SELECT min(id) FROM cards)", nil),
        ("card-factor-beyond", "2.5", "UPDATE cards SET type = 2, queue = 2, due = 10, ivl = 1, factor = 100001", "cards.factor"),
    ]

    static let easeScript = #"""
import json, os, sqlite3, struct, subprocess, sys, tempfile, zipfile
fixture, folder = sys.argv[1], sys.argv[2]
source = zipfile.ZipFile(fixture)
def varint(data, i):
    shift = value = 0
    while True:
        b = data[i]; i += 1
        value |= (b & 0x7f) << shift; shift += 7
        if b < 0x80: return value, i
def with_float(blob, field, number):
    out, i, done = bytearray(), 0, False
    while i < len(blob):
        start = i
        key, i = varint(blob, i)
        kind = key & 7
        if kind == 0: _, i = varint(blob, i)
        elif kind == 1: i += 8
        elif kind == 2:
            n, i = varint(blob, i); i += n
        elif kind == 5: i += 4
        else: raise ValueError(kind)
        if key >> 3 == field and kind == 5:
            out += blob[start:i - 4] + struct.pack('<f', number); done = True
        else:
            out += blob[start:i]
    if not done: out += bytes([field << 3 | 5]) + struct.pack('<f', number)
    return bytes(out)
with tempfile.TemporaryDirectory() as scratch:
    packed = os.path.join(scratch, 'c.zst'); path = os.path.join(scratch, 'c.db')
    for name, ease, sql in json.loads(sys.stdin.read()):
        with open(packed, 'wb') as f: f.write(source.read('collection.anki21b'))
        subprocess.run(['zstd', '-q', '-f', '-d', packed, '-o', path], check=True)
        db = sqlite3.connect(path)
        db.create_collation('unicase', lambda a, b: (a.lower() > b.lower()) - (a.lower() < b.lower()))
        for key, blob in db.execute('SELECT id, config FROM deck_config').fetchall():
            db.execute('UPDATE deck_config SET config = ? WHERE id = ?', (with_float(blob, 11, float(ease)), key))
        if sql: db.executescript(sql)
        db.commit(); db.close()
        subprocess.run(['zstd', '-q', '-f', path, '-o', packed], check=True)
        with zipfile.ZipFile(os.path.join(folder, name + '.apkg'), 'w') as out:
            for entry in source.namelist():
                out.writestr(entry, open(packed, 'rb').read() if entry == 'collection.anki21b' else source.read(entry))
"""#

    @Test("a crafted .apkg with an ease beyond its range: refused at import naming the field, or run through import, check, every export, due and review; never a trap")
    func ankiPackageWithABadEaseEndToEnd() throws {
        let workspace = try HostileWorkspace()
        let fixture = DeckBinary.packageRoot.appendingPathComponent("Fixtures/anki/anki-current.apkg")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.easeScript, fixture.path, workspace.work.path]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: Self.easeVariants.map { [$0.name, $0.ease, $0.sql] }))
        try input.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3: \(String(decoding: message, as: UTF8.self))")

        for (name, ease, _, field) in Self.easeVariants {
            let deck = "\(name).sampledeck"
            let run = try workspace.run(["import", deck, "\(name).apkg", "--create"])
            #expect(!run.signaled && !run.timedOut, "\(name) (\(ease)): \(run)")
            if let field {
                #expect(run.status == 65 && run.hasOneClearErrorLine && run.stderr.contains("\(name).apkg") && run.stderr.contains(field)
                        && run.stderr.contains("out of range"), "\(name) (\(ease)): \(run)")
                #expect(!FileManager.default.fileExists(atPath: workspace.work.appendingPathComponent(deck).path), "\(name): no deck left")
                continue
            }
            try #require(run.status == 0, "\(name) (\(ease)): \(run)")
            var commands: [[String]] = [["check", deck], ["info", deck, "--json"], ["list", deck, "--json"], ["due", deck], ["due", deck, "--json"]]
            for format in ["csv", "tsv", "json", "html"] {
                commands.append(["export", deck, "-o", "out/\(name).\(format)", "--format", format])
            }
            for layout in ["legacy", "current"] {
                commands.append(["export", deck, "-o", "out/\(name)-\(layout).apkg", "--format", "apkg", "--anki-format", layout])
            }
            commands.append(["export", deck, "-o", "out/\(name).colpkg", "--format", "colpkg"])
            commands.append(["archive", deck, "-o", "out/\(name).sampledeck.zip"])
            for arguments in commands {
                let after = try workspace.run(arguments)
                #expect(!after.signaled && !after.timedOut && after.status == 0, "\(name): \(arguments): \(after)")
            }
            // Every card answered (a review card of the largest interval and ease, new cards under
            // the preset's ease), then the deck still checks and exports.
            let listing = try workspace.run(["list", deck, "--json"])
            let cards = (try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            #expect(!cards.isEmpty, "\(name): \(listing)")
            for (index, card) in cards.enumerated() {
                let rating = ["again", "hard", "good", "easy"][index % 4]
                let review = try workspace.run(["review", deck, String(card), rating, "--no-fuzz", "--json"])
                #expect(!review.signaled && !review.timedOut && review.status == 0, "\(name): review \(card) \(rating): \(review)")
            }
            for arguments in [["check", deck], ["export", deck, "-o", "out/\(name)-reviewed.apkg", "--format", "apkg"],
                              ["export", deck, "-o", "out/\(name)-reviewed.json", "--format", "json"]] {
                let after = try workspace.run(arguments)
                #expect(!after.signaled && !after.timedOut && after.status == 0, "\(name): \(arguments): \(after)")
            }
            // What the tool exported it reads again.
            for file in ["\(name)-legacy.apkg", "\(name)-current.apkg", "\(name).colpkg", "\(name)-reviewed.apkg", "\(name).json"] {
                let again = try workspace.run(["import", "again-\(file).sampledeck", "out/\(file)", "--create"])
                #expect(!again.signaled && again.status == 0, "\(name): import \(file): \(again)")
            }
        }
    }
}

extension ExtremeValueTests {
    /// Presets at the ends of their columns' ranges (docs/FORMAT.md, "Value ranges": 32-bit counts,
    /// the starting ease up to 100000 permille, multipliers 0 to 1000, steps under 1e9 minutes),
    /// with cards at the limits of theirs: what `check` accepts the scheduler and the exporters
    /// take too, and an answer keeps the card within its ranges (reps, lapses and ease saturate).
    /// Before the ranges were narrowed (counts and ease up to Int64.max, multipliers and steps any
    /// number) and the answer saturated, `deck review` died of SIGILL here.
    static let presetsAtTheLimits: [(name: String, sql: String)] = [
        ("largest, SM-2", """
            UPDATE Preset SET newPerDay = 2147483647, reviewsPerDay = 2147483647, maximumInterval = 2147483647,
              startingEase = 100000, graduatingInterval = 2147483647, easyInterval = 2147483647,
              minimumLapseInterval = 2147483647, leechThreshold = 2147483647, easyBonus = 1000, hardMultiplier = 1000,
              intervalMultiplier = 1000, lapseMultiplier = 1000, learningSteps = '[999999999.999, 999999999]', relearningSteps = '[999999999.999]',
              desiredRetention = 0.9999999999, usesFSRS = 0;
            """),
        ("largest, FSRS", "UPDATE Preset SET usesFSRS = 1"),
        ("smallest, SM-2", """
            UPDATE Preset SET newPerDay = 0, reviewsPerDay = 0, maximumInterval = 1, startingEase = 0, graduatingInterval = 0, easyInterval = 0,
              minimumLapseInterval = 0, leechThreshold = 0, easyBonus = 0, hardMultiplier = 0, intervalMultiplier = 0,
              lapseMultiplier = 0, learningSteps = '[1e-300, 5e-324]', relearningSteps = '[5e-324]', desiredRetention = 1e-300, usesFSRS = 0;
            """),
        ("smallest, FSRS", "UPDATE Preset SET usesFSRS = 1"),
        ("no steps, huge limits", """
            UPDATE Preset SET newPerDay = 2147483647, reviewsPerDay = 2147483647, learningSteps = '[]', relearningSteps = '[]',
              easyBonus = 1000, hardMultiplier = 0, intervalMultiplier = 1000, lapseMultiplier = 0, maximumInterval = 2147483647,
              startingEase = 100000, desiredRetention = 0.5, usesFSRS = 0;
            UPDATE DeckInfo SET dayZero = 253402300799, dayStartsAt = 23;
            """),
        ("day zero in year 1", "UPDATE DeckInfo SET dayZero = -62135596800, dayStartsAt = 0; UPDATE Preset SET usesFSRS = 1"),
    ]

    /// Found by the test below: `deck review` tagged a leech through the study context's own
    /// save, which wrote no search index row, so `check` reported the deck damaged after any
    /// card's eighth lapse and `deck search leech` missed it.
    @Test("a card that becomes a leech in deck review: the search index has the tag, check passes")
    func aLeechKeepsTheSearchIndexInStep() throws {
        let workspace = try Self.workspace("UPDATE Card SET type = 2, queue = 2, due = 20, interval = 10, easeFactor = 2500, lapses = 7 WHERE pk = 1")
        let review = try workspace.run(["review", "X.sampledeck", "1", "again", "--no-fuzz"])
        #expect(review.status == 0, "\(review)")
        let check = try workspace.run(["check", "X.sampledeck"])
        #expect(check.status == 0, "\(check) \(check.stdout)")
        let search = try workspace.run(["search", "X.sampledeck", "leech", "--json"])
        #expect(search.status == 0 && search.stdout.contains("\"one\""), "\(search) \(search.stdout)")
    }

    @Test("presets at the limits of every column: check, the exports, due and review of every card in every state; never a signal")
    func presetsAtTheLimitsWorkEverywhere() throws {
        let workspace = try Self.workspace("""
            UPDATE Card SET type = 2, queue = 2, due = 2000000, interval = 2147483647, easeFactor = 100000, repetitions = 2147483647,
              lapses = 2147483646 WHERE pk = 1;
            UPDATE Card SET type = 1, queue = 1, due = 1700000000, interval = 0, easeFactor = 0, remainingSteps = 9223372036854775807 WHERE pk = 2;
            UPDATE Card SET type = 3, queue = 1, due = 1700000000, interval = 2147483647, easeFactor = 100000, remainingSteps = 1 WHERE pk = 3;
            UPDATE Card SET type = 2, queue = 2, due = -700000, interval = 0, easeFactor = 0, stability = 1e308, difficulty = 10,
              lastReview = -62135596800 WHERE pk = 4;
            """)
        let store = workspace.work.appendingPathComponent("X.sampledeck/Deck.sqlite")
        let cards = 1...5  // the four notes' cards (the reversed one has two), keys 1 to 5
        for (variant, (name, sql)) in Self.presetsAtTheLimits.enumerated() {
            try Self.sqlite(store, sql)
            let check = try workspace.run(["check", "X.sampledeck"])
            #expect(!check.signaled && check.status == 0, "\(name): the preset is within the ranges: \(check) \(check.stdout)")
            for arguments in [["export", "X.sampledeck", "-o", "out/\(variant).json", "--format", "json"],
                              ["export", "X.sampledeck", "-o", "out/\(variant).apkg", "--format", "apkg"],
                              ["export", "X.sampledeck", "-o", "out/\(variant)-current.apkg", "--format", "apkg", "--anki-format", "current"],
                              ["export", "X.sampledeck", "-o", "out/\(variant).colpkg", "--format", "colpkg"],
                              ["export", "X.sampledeck", "-o", "out/\(variant).csv"], ["info", "X.sampledeck", "--json"]] {
                let run = try workspace.run(arguments)
                #expect(!run.signaled && !run.timedOut && run.status == 0, "\(name): \(arguments): \(run)")
            }
            // The scheduler may refuse a preset it can't use (one clear line, 65), never trap.
            for arguments in [["due", "X.sampledeck"], ["due", "X.sampledeck", "--json"]] {
                let run = try workspace.run(arguments)
                #expect(!run.signaled && !run.timedOut && (run.status == 0 || run.status == 65 && run.hasOneErrorLine), "\(name): \(arguments): \(run)")
            }
            for (index, card) in cards.enumerated() {
                for rating in [["again", "hard", "good", "easy"][(index + variant) % 4], ["again", "hard", "good", "easy"][(index + variant + 2) % 4]] {
                    let run = try workspace.run(["review", "X.sampledeck", String(card), rating, "--at", "2026-12-01T09:30:00Z", "--no-fuzz"])
                    #expect(!run.signaled && !run.timedOut && (run.status == 0 || run.status == 65 && run.hasOneErrorLine),
                            "\(name): review \(card) \(rating): \(run)")
                }
            }
            // What the answers wrote is within the ranges too.
            let after = try workspace.run(["check", "X.sampledeck"])
            #expect(!after.signaled && after.status == 0, "\(name): after the answers: \(after) \(after.stdout)")
            let json = try workspace.run(["import", "J\(variant).sampledeck", "out/\(variant).json", "--create"])
            #expect(!json.signaled && json.status == 0, "\(name): the JSON export reads back: \(json)")
        }
    }
}

extension DeckRun {
    /// One error on standard error: a `deck: error:` line, or (with `--json`, and for JSON
    /// exports) one JSON object naming it.
    var hasOneErrorLine: Bool {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true)
        return hasOneClearErrorLine || (lines.count == 1 && lines[0].hasPrefix("{\"error\": "))
    }
}
