import Foundation

/// The Python references: genanki (building an `.apkg`) and current Anki's importer. Each
/// script times only its work and prints `<wall seconds> <cpu seconds>` (CPU: all threads
/// of the process, Anki's Rust backend included).
enum PythonPeers {
    /// Builds a genanki deck of the CSV's cards (argv[1]) and writes it to argv[2].
    static let genanki = """
        import csv, sys, time, genanki
        wall, cpu = time.perf_counter(), time.process_time()
        deck = genanki.Deck(2059400110, "Bench")
        with open(sys.argv[1], newline="") as f:
            for row in csv.DictReader(f):
                deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=[row["front"], row["back"]], tags=row.get("tags", "").split()))
        genanki.Package(deck).write_to_file(sys.argv[2])
        print(time.perf_counter() - wall, time.process_time() - cpu)
        """

    /// Imports the package argv[1] into a new collection under the directory argv[2].
    static let ankiImport = """
        import os, sys, time
        from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
        os.makedirs(sys.argv[2], exist_ok=True)
        col = Collection(os.path.join(sys.argv[2], "collection.anki2"))
        wall, cpu = time.perf_counter(), time.process_time()
        col.import_anki_package(ImportAnkiPackageRequest(package_path=sys.argv[1],
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True)))
        elapsed = (time.perf_counter() - wall, time.process_time() - cpu)
        count = col.note_count()
        col.close()
        print(count, file=sys.stderr)
        print(elapsed[0], elapsed[1])
        """

    /// Builds a package with current Anki itself: imports the CSV argv[1] (header `front,back`)
    /// into a new collection under the directory argv[3], gives the cards scheduling states,
    /// reviews, flags, tags and media through SQL and the media API, and exports it to argv[2]
    /// (`anki21b`, with scheduling, presets and media). Prints `<notes> <cards> <reviews> <seconds>`.
    static let ankiBuildPackage = """
        import os, sys, time
        from anki.collection import Collection, ImportCsvRequest, ExportAnkiPackageOptions
        csv_path, out, work = sys.argv[1:4]
        os.makedirs(work, exist_ok=True)
        t0 = time.time()
        text = os.path.join(work, "notes.txt")
        with open(csv_path, encoding="utf-8") as source, open(text, "w", encoding="utf-8") as target:
            source.readline()
            target.write("#separator:comma\\n#html:true\\n#columns:Front,Back\\n")
            for line in source:
                target.write(line)
        col = Collection(os.path.join(work, "collection.anki2"))
        col.import_csv(ImportCsvRequest(path=text, metadata=col.get_csv_metadata(path=text, delimiter=None)))
        os.remove(text)
        today, now = col.sched.today, int(time.time())
        db = col.db
        # Scheduling states by card id: 40% review (FSRS memory state), 10% learning, 5% suspended, 5% buried, the rest new.
        db.execute("UPDATE cards SET type = 2, queue = 2, due = ? + id % 30, ivl = 1 + id % 60, factor = 2500, reps = 3 + id % 5, "
                   "lapses = id % 3, data = '{\\"s\\":15.5,\\"d\\":5.25,\\"dr\\":0.9}' WHERE id % 20 < 8", today)
        db.execute("UPDATE cards SET type = 1, queue = 1, due = ? + id % 600, left = 2, reps = 1 WHERE id % 20 IN (8, 9)", now)
        db.execute("UPDATE cards SET type = 2, queue = -1, due = ? + 5, ivl = 10, factor = 2300, reps = 4, lapses = 1 WHERE id % 20 = 10", today)
        db.execute("UPDATE cards SET type = 2, queue = -3, due = ? + 1, ivl = 3, factor = 2500, reps = 2 WHERE id % 20 = 11", today)
        db.execute("UPDATE cards SET flags = id % 8 WHERE id % 13 = 0")
        # Three reviews per card that was ever reviewed.
        db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                   "SELECT 1600000000000 + row_number() OVER (ORDER BY c.id, k.k) * 1000, c.id, 0, 1 + (c.id + k.k) % 4, "
                   "c.ivl, CASE WHEN k.k = 0 THEN -600 ELSE c.ivl END, c.factor, 4000 + k.k * 1000, CASE WHEN k.k = 0 THEN 0 ELSE 1 END "
                   "FROM cards c, (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2) k WHERE c.type IN (1, 2)")
        # Two tags per note, 51 in all.
        db.execute("UPDATE notes SET tags = ' bench tag' || (id % 50) || ' ', usn = 0")
        db.execute("INSERT OR IGNORE INTO tags (tag, usn, collapsed, config) VALUES ('bench', 0, 0, x'')")
        for k in range(50):
            db.execute("INSERT OR IGNORE INTO tags (tag, usn, collapsed, config) VALUES (?, 0, 0, x'')", f"tag{k}")
        # Media: 20 pictures referenced by 20 notes, one under two names.
        ids = db.list("SELECT id FROM notes ORDER BY id LIMIT 20")
        for index, nid in enumerate(ids):
            name = f"bench-{index}.png"
            col.media.write_data(name, b"\\x89PNG\\r\\n\\x1a\\n" + bytes([index]) * 64)
            db.execute("UPDATE notes SET flds = flds || ? WHERE id = ?", f'<img src="{name}">', nid)
        col.media.write_data("bench-copy.png", b"\\x89PNG\\r\\n\\x1a\\n" + bytes([0]) * 64)
        db.execute("UPDATE notes SET flds = flds || '<img src=\\"bench-copy.png\\">' WHERE id = ?", ids[1])
        counts = (col.note_count(), col.card_count(), db.scalar("SELECT count() FROM revlog"))
        col.export_anki_package(out_path=out, options=ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False), limit=None)
        col.close()
        print(*counts, round(time.time() - t0, 2))
        """

    /// The installed version of a Python distribution, or "?".
    static func version(_ distribution: String) -> String {
        let script = "import importlib.metadata as m; print(m.version('\(distribution)'))"
        return (try? ChildProcess.run("python3", ["-c", script]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"
    }

    /// Whether both peers import.
    static var available: Bool {
        (try? ChildProcess.run("python3", ["-c", "import genanki, anki.collection"])) != nil
    }
}
