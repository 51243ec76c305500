#!/usr/bin/env python3
"""Writes the malformed-input corpus in Fixtures/malformed/.

Every file is an input `deck` reads that is broken or hostile: manifests, stores (as SQL
applied to a fresh deck, or raw bytes), archives, CSV/TSV, Anki packages and --where
filters. cases.tsv says how each one is fed to the built `deck` binary, the exit status it
must give and a fragment of its message; Tests/ReliabilityTests/MalformedInputTests.swift
runs them all and fails on any file here that cases.tsv does not list.

The output is deterministic: rerunning this script leaves `git status` clean. Files named
fuzz-* are inputs `make fuzz` found (kept as they were found, not written here).
Usage: python3 Fixtures/malformed/make_malformed.py
"""
import io
import json
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

MANIFEST = {
    "contentType": "com.example.flashcards",
    "created": "2026-01-01T00:00:00.000Z",
    "documentID": "55487D6C-6EDC-453C-B1CA-5C92CD508E00",
    "formatVersion": 2,
    "generator": "SampleDeck 0.2",
    "modified": "2026-01-01T00:00:00.000Z",
    "store": "Deck.sqlite",
    "title": "Malformed",
}


def save(path, data):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(full, "wb") as f:
        f.write(data)


def manifest(path, **changes):
    value = dict(MANIFEST)
    for key, new in changes.items():
        if new is DELETE:
            del value[key]
        else:
            value[key] = new
    save(path, json.dumps(value, indent=2, sort_keys=True) + "\n")


DELETE = object()


def zip_bytes(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.external_attr = (0o40755 if name.endswith("/") else 0o100644) << 16
            info.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def tar_gz_bytes(entries):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.mtime = 946684800
            if name.endswith("/"):
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                archive.addfile(info)
            else:
                info.size = len(data)
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(data))
    import gzip
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def good_manifest_bytes(**changes):
    value = dict(MANIFEST)
    value.update(changes)
    return (json.dumps(value, indent=2, sort_keys=True) + "\n").encode()


# ------------------------------------------------------------------ manifests
manifest("manifest/future-version.json", formatVersion=99)
manifest("manifest/version-zero-no-store.json", formatVersion=0, store="Cards.sqlite")
manifest("manifest/version-negative.json", formatVersion=-1)
manifest("manifest/version-string.json", formatVersion="1")
manifest("manifest/version-fraction.json", formatVersion=1.5)
manifest("manifest/version-huge.json", formatVersion=10 ** 30)
manifest("manifest/no-content-type.json", contentType=DELETE)
manifest("manifest/wrong-content-type.json", contentType="com.example.spreadsheet")
manifest("manifest/content-type-number.json", contentType=5)
manifest("manifest/no-store.json", store=DELETE)
manifest("manifest/store-traversal.json", store="../../../../etc/passwd")
manifest("manifest/store-absolute.json", store="/etc/passwd")
manifest("manifest/store-hidden.json", store=".lock")
manifest("manifest/store-nonexistent.json", store="Elsewhere.sqlite")
manifest("manifest/store-empty-name.json", store="")
manifest("manifest/bad-date.json", created="yesterday")
manifest("manifest/bad-document-id.json", documentID="not-a-uuid")
manifest("manifest/title-null.json", title=None)
manifest("manifest/title-object.json", title={"en": "x"})
manifest("manifest/huge-title.json", title="T" * (1 << 18))
manifest("manifest/html-sql-title.json", title="<script>alert(1)</script>'); DROP TABLE Card; --")
save("manifest/empty.json", b"")
save("manifest/truncated.json", good_manifest_bytes()[:60])
save("manifest/array.json", b"[]\n")
save("manifest/string.json", b'"com.example.flashcards"\n')
save("manifest/invalid-utf8.json", good_manifest_bytes().replace(b'"Malformed"', b'"Mal\xff\xfeformed"'))
save("manifest/nul-bytes.json", b"\x00" * 64)
save("manifest/deep-nesting.json", b'{"contentType": "com.example.flashcards", "title": ' + b"[" * 20000 + b"]" * 20000 + b"}")
save("manifest/utf16.json", "\ufeff".encode("utf-16-le") + good_manifest_bytes().decode().encode("utf-16-le"))

# ------------------------------------------------------------------ stores (raw bytes replacing Deck.sqlite)
save("store/empty.sqlite", b"")
save("store/text.sqlite", b"this is not a database\n" * 10)
save("store/header-only.sqlite", b"SQLite format 3\x00" + b"\x10\x00\x01\x01\x00\x40\x20\x20" + b"\x00" * 76)
save("store/foreign.sqlite.sql", "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);\n")
# SQL applied to a fresh deck's store (setup "store-sql" in cases.tsv): format version 2.
save("store/dangling-tag.sql", "PRAGMA foreign_keys=OFF;\nINSERT INTO Note_tags(source, target) VALUES (1, 999);\n")
save("store/invalid-utf8-text.sql", "UPDATE Note SET fields = '[\"' || CAST(x'c328ff' AS TEXT) || '\", \"x\"]' WHERE pk = 1;\n")
save("store/blob-in-text.sql", "UPDATE Note SET fields = x'00ff00ff' WHERE pk = 1;\n")
save("store/number-in-text.sql", "UPDATE Note SET sortText = 42.5 WHERE pk = 1;\n")
save("store/text-in-number.sql", "UPDATE Note SET created = 'yesterday' WHERE pk = 1;\n")
save("store/unknown-kind.sql", "UPDATE NoteType SET kind = 7;\n")
save("store/dropped-card-table.sql", "DROP TABLE Review;\nDROP TABLE Card;\n")
# Values beyond their column's range (docs/FORMAT.md): readers must not trap converting them.
save("store/infinite-date.sql", "UPDATE Card SET created = 9e999 WHERE pk = 1;\n")
save("store/huge-ease.sql", "UPDATE Card SET easeFactor = 1e308 WHERE pk = 1;\n")
save("store/infinite-review-duration.sql", "INSERT INTO Review (time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (0, 3, 1, 0, 0, 9e999, 1, 1);\n")
save("store/future-user-version.sql", "PRAGMA user_version = 99;\n")
save("store/search-index-stale.sql", "DELETE FROM NoteSearch;\n")
# Hostile schemas: SQL of a shared deck must never run (refused before any query).
NOTE_COLUMNS = "pk, guid, fields, sortText, created, modified, ankiID, noteType"
save("store/recursive-view-card.sql",
     "DROP TRIGGER Note_search_delete;\n"
     "ALTER TABLE Note RENAME TO NoteRows;\n"
     "CREATE VIEW Note AS WITH RECURSIVE r(%s) AS (SELECT * FROM NoteRows UNION ALL SELECT pk + 1, guid, fields, sortText, "
     "created, modified, ankiID, noteType FROM r) SELECT * FROM r;\n" % NOTE_COLUMNS)
save("store/planted-trigger.sql", "CREATE TRIGGER evil AFTER INSERT ON Card BEGIN DELETE FROM Tag; END;\n")
save("store/trigger-our-name-other-sql.sql",
     "DROP TRIGGER Note_search_delete;\nCREATE TRIGGER Note_search_delete AFTER DELETE ON Note BEGIN DELETE FROM Tag; END;\n")
save("store/unknown-virtual-table.sql",
     "PRAGMA writable_schema = ON;\nINSERT INTO sqlite_schema VALUES ('table', 'Evil', 'Evil', 0, 'CREATE VIRTUAL TABLE Evil USING nosuchmodule(x)');\n")
save("store/extra-table.sql", "CREATE TABLE Extra(x);\nINSERT INTO Extra VALUES ('never read');\n")
# A table or index of the format defined otherwise (issue 17: compared by statement, not by name).
# The sqlite3 shell may rewrite the schema's text (writable_schema): a CHECK, a DEFAULT or a
# type SQLite would run or use on the format's behalf.
def rewrite_table(table, old, new):
    return ("PRAGMA writable_schema = ON;\nUPDATE sqlite_schema SET sql = replace(sql, '%s', '%s') WHERE name = '%s';\n"
            % (old.replace("'", "''"), new.replace("'", "''"), table))
FLAG = '"flag" INTEGER NOT NULL'
save("store/card-extra-column.sql", "ALTER TABLE Card ADD COLUMN evil TEXT;\n")
save("store/card-generated-column.sql", "ALTER TABLE Card ADD COLUMN evil AS (length(zeroblob(100000000)));\n")
save("store/card-check-randomblob.sql", rewrite_table("Card", FLAG, FLAG + " CHECK (length(randomblob(1000000000)) > 0)"))
save("store/card-changed-type.sql", rewrite_table("Card", FLAG, '"flag" TEXT NOT NULL'))
save("store/card-function-default.sql", rewrite_table("Card", '"customData" TEXT NOT NULL', '"customData" TEXT NOT NULL DEFAULT (hex(randomblob(100000000)))'))
save("store/card-changed-index.sql",
     "DROP INDEX Card_ankiID_set;\nCREATE INDEX \"Card_ankiID_set\" ON \"Card\"(abs(\"ankiID\")) WHERE \"ankiID\" IS NOT NULL;\n")
save("store/trigger-control-name.sql", "CREATE TRIGGER \"evil\ndeck: error: forged\" AFTER INSERT ON Card BEGIN DELETE FROM Tag; END;\n")
# Accepted: a constant DEFAULT (as ALTER TABLE ADD COLUMN leaves in migrated stores), other
# whitespace and another style of quoting a name: the same statement to SQLite.
save("store/tag-constant-default-and-quoting.sql",
     rewrite_table("Tag", '"collapsed" INTEGER NOT NULL', '[collapsed]\n    INTEGER   NOT NULL DEFAULT 0'))
# A rollback journal naming a super-journal (another file), which SQLite would read and may delete.
JOURNAL_MAGIC = bytes([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7])
_super = b"/etc/hostname"
save("store/super-journal.journal", JOURNAL_MAGIC + b"\x00" * 504 + b"\x00\x00\x00\x01" + _super
     + len(_super).to_bytes(4, "big") + (sum((c ^ 0x80) - 0x80 for c in _super) & 0xFFFFFFFF).to_bytes(4, "big") + JOURNAL_MAGIC)
save("store/html-sql-in-cards.sql",
     "UPDATE Note SET fields = json_array('<img src=x onerror=alert(1)>', '''); DROP TABLE Card; --') WHERE pk = 1;\n")

# ------------------------------------------------------------------ archives
DECK = "Deck.sampledeck/"
save("archive/empty.zip", zip_bytes([]))
save("archive/zero-bytes.zip", b"")
save("archive/future-version.zip", zip_bytes([(DECK, b""), (DECK + "manifest.json", good_manifest_bytes(formatVersion=99)),
                                              (DECK + "Deck.sqlite", b"not a database")]))
save("archive/store-not-sqlite.zip", zip_bytes([(DECK, b""), (DECK + "manifest.json", good_manifest_bytes()),
                                                (DECK + "Deck.sqlite", b"not a database" * 100)]))
save("archive/no-store.tar.gz", tar_gz_bytes([(DECK, b""), (DECK + "manifest.json", good_manifest_bytes())]))
save("archive/manifest-not-json.tar.gz", tar_gz_bytes([(DECK, b""), (DECK + "manifest.json", b"{\"contentType\": "),
                                                       (DECK + "Deck.sqlite", b"x")]))
save("archive/store-traversal-manifest.zip", zip_bytes([(DECK, b""), (DECK + "manifest.json", good_manifest_bytes(store="../../evil.sqlite")),
                                                        (DECK + "Deck.sqlite", b"x")]))
save("archive/garbage.tar.zst", b"\x28\xb5\x2f\xfd" + b"\xff" * 200)

# ------------------------------------------------------------------ CSV / TSV
save("csv/invalid-utf8.csv", b"front,back\nchat,cat\nch\xe2\x28\xa1t,bad\n")
save("csv/unterminated-quote.csv", b'front,back\n"never closed,back\nnext,row\n')
save("csv/latin1.csv", "front,back\ncaf\u00e9,coffee\n".encode("latin-1"))
save("csv/utf16.csv", "\ufefffront,back\nchat,cat\n".encode("utf-16-le"))
save("csv/binary.csv", bytes(range(256)) * 4)
save("csv/nul-bytes.csv", b"front,back\nch\x00at,c\x00at\n")
save("csv/empty.csv", b"")
save("csv/bom-only.csv", b"\xef\xbb\xbf")
save("csv/header-only.csv", b"front,back,tags\n")
save("csv/huge-field.csv", b"front,back\nhuge," + b"x" * (1 << 18) + b"\n")
save("csv/many-columns.csv", (",".join(["c%d" % i for i in range(2000)]) + "\n" + ",".join(["v"] * 2000) + "\n").encode())
save("csv/ragged-rows.csv", b"front,back,tags\none\ntwo,2,t,extra,extra\n,empty front\n")
save("csv/stray-quote.csv", b'front,back\nun"quoted,back\n"a"b,c\n')
save("csv/sql-injection.csv", b"front,back\n\"'); DROP TABLE Card; --\",\"1' OR '1'='1\"\n")
save("csv/html.csv", b"front,back\n<script>alert(1)</script>,<img src=x onerror=alert(2)>\n")
save("csv/control-characters.csv", b"front,back\n\x01\x02\x1b[31mred\x1b[0m,\x7f\r\nsecond,row\r\n")
save("csv/bad-anki-separator.txt", b"#separator:Banana\n#html:false\nfront;back\n")
save("csv/bad-anki-columns.txt", b"#separator:tab\n#columns:\n#tags column:99\nfront\tback\n")
save("csv/invalid-utf8.tsv", b"front\tback\n\xff\xfe\tx\n")
save("csv/unterminated-quote.tsv", b'front\tback\n"open\tquote\n')
save("csv/no-newline-huge-line.csv", b"a," * 100000)

# ------------------------------------------------------------------ Anki packages
with open(os.path.join(ROOT, "Fixtures/anki/anki-legacy.apkg"), "rb") as f:
    legacy = f.read()
save("apkg/not-a-zip.apkg", b"this is not an Anki package\n")
save("apkg/truncated.apkg", legacy[: len(legacy) // 2])
save("apkg/empty-zip.apkg", zip_bytes([]))
save("apkg/collection-not-sqlite.apkg", zip_bytes([("collection.anki2", b"not sqlite" * 50), ("media", b"{}")]))
save("apkg/bad-media-json.apkg", zip_bytes([("collection.anki2", b"not sqlite"), ("media", b"{not json")]))
save("apkg/zstd-garbage.apkg", zip_bytes([("collection.anki21b", b"\x28\xb5\x2f\xfd" + b"\x00" * 64), ("meta", b"\x08\x03")]))
def hostile_legacy_collection(sql):
    """The legacy fixture's collection with `sql` applied: an Anki package of a stranger."""
    import sqlite3
    import tempfile
    with zipfile.ZipFile(io.BytesIO(legacy)) as package:
        collection = package.read("collection.anki2")
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "collection.anki2")
        with open(path, "wb") as f:
            f.write(collection)
        db = sqlite3.connect(path)
        db.executescript(sql)
        db.commit()
        db.close()
        with open(path, "rb") as f:
            return f.read()


save("apkg/recursive-view-cards.apkg", zip_bytes([
    ("collection.anki2", hostile_legacy_collection(
        "ALTER TABLE cards RENAME TO cards_rows;\n"
        "CREATE VIEW cards AS WITH RECURSIVE r(id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data) "
        "AS (SELECT * FROM cards_rows UNION ALL SELECT id + 1, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data FROM r) "
        "SELECT * FROM r;\n")),
    ("media", b"{}")]))
save("apkg/planted-trigger.apkg", zip_bytes([
    ("collection.anki2", hostile_legacy_collection("CREATE TRIGGER evil AFTER INSERT ON notes BEGIN DELETE FROM cards; END;\n")),
    ("media", b"{}")]))
save("apkg/traversal-media.apkg", zip_bytes([("collection.anki2", b"x"), ("media", b'{"0": "../../escape.txt"}'), ("0", b"escaped")]))

# ------------------------------------------------------------------ --where filters
save("filter/unbalanced-open.txt", 'front contains "a" and (tag = "x"')
save("filter/unbalanced-close.txt", 'front contains "a")')
save("filter/unknown-field.txt", 'colour = "red"')
save("filter/bad-date.txt", "created > 2026-13-45")
save("filter/unterminated-string.txt", 'front contains "abc')
save("filter/empty.txt", "")
save("filter/dangling-and.txt", 'front contains "a" and')
save("filter/double-operator.txt", 'front = = "a"')
save("filter/deep-parentheses.txt", "(" * 20000 + "kind = basic" + ")" * 20000)
save("filter/deep-not.txt", "not " * 20000 + "kind = basic")
save("filter/long-or-chain.txt", " or ".join(['front = "%d"' % i for i in range(5000)]))
save("filter/sql-injection.txt", "front contains \"'; DROP TABLE Card; --\" or back = \"1' OR '1'='1\"")
save("filter/huge-literal.txt", 'front contains "' + "x" * 100000 + '"')  # under Linux's 128 KiB argument limit
save("filter/control-characters.txt", 'front = "\x01\x1b[2J"')
