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
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False)))
        elapsed = (time.perf_counter() - wall, time.process_time() - cpu)
        count = col.note_count()
        col.close()
        print(count, file=sys.stderr)
        print(elapsed[0], elapsed[1])
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
