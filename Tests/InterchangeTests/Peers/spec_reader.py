#!/usr/bin/env python3
"""A reader of `.sampledeck` packages written from the specification alone.

    python3 spec_reader.py [--store-sql PATH] [--utc-offset SECONDS] PACKAGE

It follows docs/FORMAT.md (format version 2), Schemas/store.sql, Schemas/manifest.schema.json
and sampledeck(5), and nothing else: it was written without reading the program's sources,
so where it and the program disagree, one of them or the specification is wrong. It opens the
package read-only (it writes nothing inside it), applies the checks FORMAT.md asks of a reader
("Version policy", "What a reader must refuse", "Value ranges"), and prints what the deck holds
as one JSON document on standard output: the manifest; the deck's own row; note types with
their fields, templates, CSS and kind; notes with their GUID, note type, field values by field
name and tags; cards with their note, ordinal, deck path, scheduling, FSRS memory state and,
for cards due on a day, the day as a date; decks with descriptions and presets; presets;
review log rows; tags; media with their names and whether each file's bytes match its hash.

A refusal prints one line `spec_reader: error: <path>: <what is wrong>` on standard error and
exits with 65 (66 when the package is missing), the statuses FORMAT.md gives.

Python's standard library only (sqlite3, json, hashlib). Python's sqlite3 module can't pass
SQLITE_OPEN_NOFOLLOW or (before 3.12) set SQLITE_DBCONFIG_DEFENSIVE, so the reader opens each
file of the package itself (O_NOFOLLOW | O_NONBLOCK, fstat), copies the store and its journal
into a private temporary directory from those descriptors and lets SQLite read (and, for a hot
journal, recover) the copy: nothing inside the package is written or followed.
"""

import datetime
import hashlib
import json
import os
import re
import shutil
import sqlite3
import stat
import sys
import tempfile

FORMAT_VERSION = 2
CONTENT_TYPE = "com.example.flashcards"
REVISIONS = ("2.1.0", "2.0.0")
REVISION_2_0_EXTRA = [
    ("index", "Card_note", "Card", 'CREATE INDEX "Card_note" ON "Card"("note")'),
    ("index", "Card_deck", "Card", 'CREATE INDEX "Card_deck" ON "Card"("deck")'),
]
SUPER_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
DAY = 86400
MIN_DATE = -62135596800.0          # 0001-01-01T00:00:00Z
MAX_DATE = 253402300800.0          # 10000-01-01T00:00:00Z (FORMAT.md: "years 1 to 9999")
I32 = (-2**31, 2**31 - 1)
I63 = (0, 2**63 - 1)


class Refusal(Exception):
    def __init__(self, path, message, status=65):
        super().__init__(message)
        self.path = path
        self.message = message
        self.status = status


# ---------------------------------------------------------------- files of the package

def open_regular(path, what, missing_ok=False):
    """Opens a file of the package without following a link and only if it is a regular file
    (FORMAT.md, "What a reader must refuse": O_NOFOLLOW | O_NONBLOCK, then fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if missing_ok:
            return None
        raise Refusal(path, f"{what} is missing", 65)
    except OSError as error:
        if os.path.islink(path):
            raise Refusal(path, f"{what} is a symbolic link")
        raise Refusal(path, f"{what} can't be opened: {error.strerror}")
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise Refusal(path, f"{what} is not a regular file")
    return fd


def read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def check_directory(path, what):
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise Refusal(path, f"{what} is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise Refusal(path, f"{what} is not a directory")
    return True


NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f/]")
MEDIA_FILE_NAME = re.compile(r"^[0-9a-f]{64}(\.[a-z0-9]{1,10})?$")


def check_plain_name(name, what, path):
    """The names grammar of FORMAT.md ("manifest.json", Names)."""
    if not isinstance(name, str) or not name:
        raise Refusal(path, f"{what} is not a name")
    size = len(name.encode("utf-8"))
    if size > 255 or name in (".", "..") or name.startswith(".") or NAME_CONTROL.search(name):
        raise Refusal(path, f"{what} {name!r} is not a plain file name")


# ---------------------------------------------------------------- manifest

DATE_PATTERN = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$")
UUID_PATTERN = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")


def parse_manifest_date(text, field, path):
    match = DATE_PATTERN.match(text) if isinstance(text, str) else None
    if not match:
        raise Refusal(path, f"manifest field {field} is not an ISO 8601 UTC date")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction = float(match.group(7) or 0)
    try:
        moment = datetime.datetime(year, month, day, hour, minute, second, tzinfo=datetime.timezone.utc)
    except ValueError:
        raise Refusal(path, f"manifest field {field} is not a valid date")
    return moment.timestamp() + fraction


def read_manifest(package, notes):
    path = os.path.join(package, "manifest.json")
    fd = open_regular(path, "manifest.json")
    try:
        data = read_all(fd)
    finally:
        os.close(fd)
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise Refusal(path, f"manifest.json is not UTF-8 JSON ({error})")
    if not isinstance(manifest, dict):
        raise Refusal(path, "manifest.json is not a JSON object")
    if manifest.get("contentType") != CONTENT_TYPE:
        raise Refusal(path, f"contentType is {manifest.get('contentType')!r}, not {CONTENT_TYPE}: not a deck")
    version = manifest.get("formatVersion")
    # An integer as JSON Schema counts them: a number without a fractional part (2.0 is 2).
    if isinstance(version, float) and version.is_integer():
        version = int(version)
    if isinstance(version, bool) or not isinstance(version, int):
        raise Refusal(path, "formatVersion is not an integer")
    if version > FORMAT_VERSION:
        raise Refusal(path, f"deck format version {version} is newer than this reader's version {FORMAT_VERSION}")
    if version < FORMAT_VERSION:
        raise Refusal(path, f"deck format version {version} is older than this reader's version {FORMAT_VERSION}; run 'deck migrate'")
    for field in ("documentID", "title", "created", "modified", "generator", "store"):
        if field not in manifest:
            raise Refusal(path, f"manifest field {field} is missing")
        if not isinstance(manifest[field], str):
            raise Refusal(path, f"manifest field {field} is not a string")
    if not UUID_PATTERN.match(manifest["documentID"]):
        raise Refusal(path, "documentID is not a UUID")
    if manifest["documentID"] != manifest["documentID"].upper():
        notes.append("manifest: documentID is not upper-case (FORMAT.md asks writers for upper case)")
    created = parse_manifest_date(manifest["created"], "created", path)
    modified = parse_manifest_date(manifest["modified"], "modified", path)
    if modified < created:
        notes.append("manifest: modified is before created (a 'must' rule of FORMAT.md)")
    check_plain_name(manifest["store"], "store", path)
    return manifest


# ---------------------------------------------------------------- the store

def expected_schema(store_sql_path):
    """What sqlite_master of a deck must hold: the objects Schemas/store.sql creates (SQLite's
    own sqlite_autoindex_* and FTS5's shadow tables of NoteSearch included, as SQLite makes them
    when it runs that file)."""
    with open(store_sql_path, encoding="utf-8") as handle:
        script = handle.read()
    memory = sqlite3.connect(":memory:")
    try:
        memory.executescript(script)
        rows = memory.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    finally:
        memory.close()
    return {(row[0], row[1]): (row[2], row[3]) for row in rows}


def copy_store(package, store_name, private):
    """Copies the store and its companions through descriptors opened without following links
    into a private directory, so SQLite never touches the package."""
    store_path = os.path.join(package, store_name)
    fd = open_regular(store_path, "store")
    target = os.path.join(private, "store.sqlite")
    with os.fdopen(fd, "rb") as source, open(target, "wb") as sink:
        shutil.copyfileobj(source, sink, 1 << 20)
    companions = {}
    for suffix in ("-journal", "-wal", "-shm"):
        path = store_path + suffix
        fd = open_regular(path, f"store companion {suffix}", missing_ok=True)
        if fd is None:
            continue
        data = read_all(fd)
        os.close(fd)
        companions[suffix] = len(data)
        if suffix == "-journal" and len(data) >= 16 and data[-8:] == SUPER_JOURNAL_MAGIC:
            # The journal ends with a super-journal name (SQLite's file format, section 5):
            # rolling it back would make SQLite open the file it names.
            raise Refusal(path, "the journal names a super-journal")
        if suffix == "-shm":
            continue    # never copied: SQLite rebuilds the index of a WAL it reads
        with open(target + suffix, "wb") as sink:
            sink.write(data)
    return target, companions


# A column's constant default, which a migrated store's tables carry where the migration added
# the column (FORMAT.md, "What a reader accepts in the store").
CONSTANT_DEFAULT = re.compile(r" DEFAULT (?:'[^']*'|-?[0-9]+(?:\.[0-9]+)?)(?=[,)])")
SQLITE_OWN_TABLES = {"sqlite_stat1", "sqlite_stat4", "sqlite_sequence"}


def check_schema(connection, expected, path):
    rows = connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    found = {(row[0], row[1]): (row[2], row[3]) for row in rows}
    extra_2_0 = {(kind, name): (table, sql) for kind, name, table, sql in REVISION_2_0_EXTRA}
    for (kind, name), (table, sql) in sorted(found.items(), key=lambda item: item[0]):
        if kind == "view":
            raise Refusal(path, f"the store holds a view {name!r}")
        if kind == "table" and name in SQLITE_OWN_TABLES:
            continue    # SQLite's own statistics (ANALYZE), never read
        wanted = expected.get((kind, name)) or extra_2_0.get((kind, name))
        if wanted is None:
            raise Refusal(path, f"the store holds a {kind} {name!r} the format does not list")
        if kind == "table" and sql is not None and wanted[0] == table and CONSTANT_DEFAULT.sub("", sql) == wanted[1]:
            continue
        if wanted != (table, sql):
            raise Refusal(path, f"the store's {kind} {name!r} is not the format's ({sql!r})")
    for (kind, name) in expected:
        if (kind, name) not in found:
            raise Refusal(path, f"the store lacks the {kind} {name!r}")
    has_2_0 = [key for key in extra_2_0 if key in found]
    return "2.0.0" if len(has_2_0) == len(extra_2_0) else ("partial" if has_2_0 else "2.1.0")


def iso(seconds):
    if seconds is None:
        return None
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += ".%03dZ" % (moment.microsecond // 1000)
    else:
        text += "Z"
    return text


# --------------------------------------------------------------- value ranges (FORMAT.md)

def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_num(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and value == value and value not in (float("inf"), float("-inf")))


def json_value(text, kind):
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, kind) else None


def rule_int(low, high, nullable=False):
    return lambda v: (nullable and v is None) or (is_int(v) and low <= v <= high)


def rule_real(low, high, nullable=False, open_low=False, open_high=False):
    def check(v):
        if v is None:
            return nullable
        if not is_num(v):
            return False
        if v < low or v > high or (open_low and v == low) or (open_high and v == high):
            return False
        return True
    return check


RULE_BOOL = rule_int(0, 1)
RULE_TEXT = lambda v: isinstance(v, str)
RULE_DATE = rule_real(MIN_DATE, MAX_DATE, open_high=True)
RULE_TIME = rule_int(int(MIN_DATE), int(MAX_DATE) - 1)
RULE_ANKI_ID = lambda v: v is None or is_int(v)
RULE_OBJECT = lambda v: json_value(v, dict) is not None
RULE_ARRAY = lambda v: json_value(v, list) is not None


def rule_steps(v):
    steps = json_value(v, list)
    return steps is not None and all(is_num(s) and 0 < s < 1e9 for s in steps)


def rule_guid(v):
    return isinstance(v, str) and 1 <= len(v) <= 64 and all(0x21 <= ord(c) <= 0x7e for c in v)


def rule_deck_path(v):
    return isinstance(v, str) and v != "" and all(level != "" for level in v.split("::"))


def rule_tag(v):
    return isinstance(v, str) and 1 <= len(v) <= 100 and not re.search(r"[\s\x00-\x1f\x7f]", v)


def rule_media_name(v):
    return isinstance(v, str) and v not in ("", ".", "..") and "/" not in v and "\\" not in v


RULES = {
    "NoteType": {"name": RULE_TEXT, "kind": rule_int(0, 1), "stockKind": rule_int(1, 6, True),
                 "css": RULE_TEXT, "sortField": rule_int(*I63), "latexPre": RULE_TEXT,
                 "latexPost": RULE_TEXT, "latexSVG": RULE_BOOL, "modified": RULE_DATE,
                 "ankiID": RULE_ANKI_ID, "ankiOptions": RULE_OBJECT},
    "NoteField": {"ordinal": rule_int(*I63), "name": RULE_TEXT, "font": RULE_TEXT,
                  "fontSize": rule_int(*I63), "rightToLeft": RULE_BOOL, "sticky": RULE_BOOL,
                  "plainText": RULE_BOOL, "collapsed": RULE_BOOL, "excludeFromSearch": RULE_BOOL,
                  "fieldDescription": RULE_TEXT, "ankiID": RULE_ANKI_ID, "ankiOptions": RULE_OBJECT},
    "CardTemplate": {"ordinal": rule_int(*I63), "name": RULE_TEXT, "questionFormat": RULE_TEXT,
                     "answerFormat": RULE_TEXT, "browserQuestionFormat": RULE_TEXT,
                     "browserAnswerFormat": RULE_TEXT, "browserFont": RULE_TEXT,
                     "browserFontSize": rule_int(*I63), "modified": RULE_DATE,
                     "ankiID": RULE_ANKI_ID, "ankiOptions": RULE_OBJECT},
    "Note": {"guid": rule_guid, "fields": RULE_ARRAY, "sortText": RULE_TEXT, "created": RULE_DATE,
             "modified": RULE_DATE, "ankiID": RULE_ANKI_ID},
    "Card": {"ordinal": rule_int(0, 499), "type": rule_int(0, 3), "queue": rule_int(-3, 4),
             "due": rule_int(-253402300800, 253402300800),
             "originalDue": rule_int(-253402300800, 253402300800),
             "interval": rule_int(0, I32[1]), "repetitions": rule_int(0, I32[1]),
             "lapses": rule_int(0, I32[1]), "remainingSteps": rule_int(*I63),
             "easeFactor": rule_int(0, 100000), "flag": rule_int(0, 7),
             "stability": rule_real(float("-inf"), float("inf"), True),
             "decay": rule_real(float("-inf"), float("inf"), True),
             "difficulty": rule_real(1, 10, True),
             "desiredRetention": rule_real(0, 1, True, open_low=True, open_high=True),
             "lastReview": rule_int(int(MIN_DATE), int(MAX_DATE) - 1, True),
             "originalPosition": rule_int(*I63, True),
             "customData": lambda v: v == "" or RULE_OBJECT(v),
             "created": RULE_DATE, "modified": RULE_DATE, "ankiID": RULE_ANKI_ID,
             "ankiOptions": RULE_OBJECT},
    "Deck": {"name": rule_deck_path, "kind": rule_int(0, 1), "deckDescription": RULE_TEXT,
             "markdownDescription": RULE_BOOL, "collapsed": RULE_BOOL, "filterTerms": RULE_ARRAY,
             "reschedules": RULE_BOOL, "modified": RULE_DATE, "ankiID": RULE_ANKI_ID,
             "ankiOptions": RULE_OBJECT},
    "Preset": {"name": RULE_TEXT, "newPerDay": rule_int(0, I32[1]), "reviewsPerDay": rule_int(0, I32[1]),
               "learningSteps": rule_steps, "relearningSteps": rule_steps,
               "maximumInterval": rule_int(1, I32[1]), "usesFSRS": RULE_BOOL,
               "fsrsParameters": RULE_ARRAY,
               "desiredRetention": rule_real(0, 1, open_low=True, open_high=True),
               "startingEase": rule_int(0, 100000), "graduatingInterval": rule_int(0, I32[1]),
               "easyInterval": rule_int(0, I32[1]), "easyBonus": rule_real(0, 1000),
               "hardMultiplier": rule_real(0, 1000), "intervalMultiplier": rule_real(0, 1000),
               "lapseMultiplier": rule_real(0, 1000), "minimumLapseInterval": rule_int(0, I32[1]),
               "leechThreshold": rule_int(0, I32[1]), "buryNewSiblings": RULE_BOOL,
               "buryReviewSiblings": RULE_BOOL, "buryInterdaySiblings": RULE_BOOL,
               "modified": RULE_DATE, "ankiID": RULE_ANKI_ID, "ankiOptions": RULE_OBJECT},
    "Review": {"time": rule_int(int(MIN_DATE) * 1000, int(MAX_DATE) * 1000 - 1),
               "rating": rule_int(0, 4), "interval": rule_int(*I32), "lastInterval": rule_int(*I32),
               "easeFactor": rule_int(0, 100000), "duration": rule_int(0, 86400000),
               "kind": rule_int(0, 5), "ankiID": RULE_ANKI_ID},
    "Tag": {"name": rule_tag, "collapsed": RULE_BOOL},
    "MediaFile": {"sha256": lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None,
                  "sha1": lambda v: v == "" or (isinstance(v, str) and re.fullmatch(r"[0-9a-f]{40}", v) is not None),
                  "size": rule_int(*I63), "fileName": RULE_TEXT, "mime": RULE_TEXT},
    "MediaName": {"name": rule_media_name},
    "DeckInfo": {"title": RULE_TEXT, "deckDescription": RULE_TEXT, "dayZero": RULE_TIME,
                 "dayStartsAt": rule_int(0, 23), "ankiConfig": RULE_OBJECT},
}

# Relationship columns: FORMAT.md marks these "required" (a NULL is an error).
REQUIRED_RELATIONSHIPS = {
    "NoteField": ["noteType"], "CardTemplate": ["noteType"], "Note": ["noteType"],
    "Card": ["note", "deck"], "Review": ["card"], "MediaName": ["file"],
}


def read_table(connection, table, path):
    cursor = connection.execute(f'SELECT * FROM "{table}" ORDER BY "pk"')
    names = [column[0] for column in cursor.description]
    rows = []
    rules = RULES.get(table, {})
    for values in cursor:
        row = dict(zip(names, values))
        if not is_int(row.get("pk")):
            raise Refusal(path, f"{table} row has a key that is not an integer")
        for column, rule in rules.items():
            if not rule(row.get(column)):
                raise Refusal(path, f"{table} {row['pk']}.{column} = {row.get(column)!r}: out of range")
        for column in REQUIRED_RELATIONSHIPS.get(table, []):
            if row.get(column) is None:
                raise Refusal(path, f"{table} {row['pk']}.{column} is NULL but required")
        rows.append(row)
    return rows


def read_links(connection, table):
    return connection.execute(f'SELECT "source", "target" FROM "{table}" ORDER BY "source", "target"').fetchall()


CLOZE_NUMBER = re.compile(r"\{\{c(\d+)::")


def due_description(card, days):
    """What a card's `due` means (FORMAT.md, Card.due): by queue, and for queues -3 to -1 by type
    (a learning or relearning card's `due` above 1,000,000,000 is a time, else a day)."""
    queue, kind, due = card["queue"], card["type"], card["due"]
    if queue in (1, 4):
        return {"in": "time", "value": due, "time": iso(due)}
    if card["originalDeck"] is not None:
        # In a filtered deck `due` orders the filtered deck's cards; the day is `originalDue`.
        return {"in": "filtered deck order", "value": due}
    if queue in (-3, -2, -1):
        if kind in (1, 3):
            if due > 1_000_000_000:
                return {"in": "time", "value": due, "time": iso(due)}
            return days.describe(due)
        if kind == 0:
            return {"in": "position", "value": due}
        return days.describe(due)
    if queue == 0:
        return {"in": "position", "value": due}
    return days.describe(due)


class Days:
    """Day numbers (FORMAT.md, Card.due and DeckInfo): day N is the study day on the calendar
    date N days after dayZero's date, in the deck's local time, starting at dayStartsAt
    o'clock."""

    def __init__(self, day_zero, day_starts_at, utc_offset):
        self.offset = utc_offset
        self.starts_at = day_starts_at
        local = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=day_zero + utc_offset)
        self.origin = local.date()

    def describe(self, number):
        date = self.origin + datetime.timedelta(days=number)
        local_start = datetime.datetime(date.year, date.month, date.day, self.starts_at)
        start = (local_start - datetime.datetime(1970, 1, 1)).total_seconds() - self.offset
        return {"in": "day", "value": number, "date": date.isoformat(), "dayStarts": iso(start)}


def read_store(store_copy, package, manifest, expected, notes, utc_offset):
    store_path = os.path.join(package, manifest["store"])
    connection = sqlite3.connect(f"file:{store_copy}?mode=rw", uri=True, isolation_level=None)
    try:
        connection.execute("PRAGMA trusted_schema = OFF")
        connection.execute("PRAGMA query_only = ON")
        revision_layout = check_schema(connection, expected, store_path)
        if revision_layout == "partial":
            raise Refusal(store_path, "the store holds only one of revision 2.0.0's indexes Card_note and Card_deck")
        user_version = connection.execute("PRAGMA user_version").fetchone()[0]
        if user_version != manifest["formatVersion"]:
            raise Refusal(store_path, f"user_version {user_version} differs from the manifest's formatVersion {manifest['formatVersion']}")
        metadata = dict(connection.execute('SELECT "key", "value" FROM "persistence_metadata"').fetchall())
        revision = metadata.get("schemaVersion")
        if revision not in REVISIONS:
            raise Refusal(store_path, f"schemaVersion {revision!r} is not one this reader knows ({', '.join(REVISIONS)})")
        if revision != revision_layout:
            raise Refusal(store_path, f"schemaVersion {revision} but the layout of {revision_layout}")
        connection.execute("BEGIN")
        tables = {table: read_table(connection, table, store_path) for table in (
            "DeckInfo", "NoteType", "NoteField", "CardTemplate", "Note", "Card", "Deck", "Preset",
            "Review", "Tag", "MediaFile", "MediaName")}
        note_tags = read_links(connection, "Note_tags")
        note_media = read_links(connection, "Note_media")
        pending = connection.execute('SELECT "indexedThrough" FROM "NoteSearchPending"').fetchall()
        foreign = connection.execute("PRAGMA foreign_key_check").fetchall()
        connection.execute("COMMIT")
    finally:
        connection.close()
    if foreign:
        raise Refusal(store_path, f"foreign key violations: {foreign[:3]}")
    if len(tables["DeckInfo"]) != 1 or tables["DeckInfo"][0]["pk"] != 1:
        raise Refusal(store_path, "DeckInfo does not hold exactly one row of pk 1")
    info = tables["DeckInfo"][0]
    day_zero = info["dayZero"]
    days = Days(day_zero, info["dayStartsAt"], utc_offset)
    if len(pending) > 1:
        raise Refusal(store_path, "NoteSearchPending holds more than one row")

    by_pk = lambda rows: {row["pk"]: row for row in rows}
    decks = by_pk(tables["Deck"])
    presets = by_pk(tables["Preset"])
    note_types = by_pk(tables["NoteType"])
    tags = by_pk(tables["Tag"])
    media_files = by_pk(tables["MediaFile"])
    media_names = by_pk(tables["MediaName"])
    lowest_preset = min(presets) if presets else None

    # Deck tree: every ancestor must exist; a normal deck has a preset.
    names = {deck["name"] for deck in decks.values()}
    for deck in decks.values():
        levels = deck["name"].split("::")
        for depth in range(1, len(levels)):
            if "::".join(levels[:depth]) not in names:
                raise Refusal(store_path, f"deck {deck['name']!r} has no parent deck {'::'.join(levels[:depth])!r}")
    if not any(deck["kind"] == 0 for deck in decks.values()):
        raise Refusal(store_path, "the store holds no normal deck")

    fields_of = {}
    templates_of = {}
    for field in tables["NoteField"]:
        fields_of.setdefault(field["noteType"], []).append(field)
    for template in tables["CardTemplate"]:
        templates_of.setdefault(template["noteType"], []).append(template)
    out_types = []
    for pk, kind in note_types.items():
        fields = sorted(fields_of.get(pk, []), key=lambda f: f["ordinal"])
        templates = sorted(templates_of.get(pk, []), key=lambda t: t["ordinal"])
        if [f["ordinal"] for f in fields] != list(range(len(fields))):
            raise Refusal(store_path, f"NoteType {pk}: field ordinals are not 0, 1, … without gaps")
        if [t["ordinal"] for t in templates] != list(range(len(templates))):
            raise Refusal(store_path, f"NoteType {pk}: template ordinals are not 0, 1, … without gaps")
        if fields and not kind["sortField"] < len(fields):
            raise Refusal(store_path, f"NoteType {pk}: sortField {kind['sortField']} names no field")
        if kind["kind"] == 1 and len(templates) != 1:
            notes.append(f"NoteType {pk}: a cloze type with {len(templates)} templates (FORMAT.md: exactly one)")
        out_types.append({
            "id": pk, "name": kind["name"], "kind": "cloze" if kind["kind"] == 1 else "standard",
            "stockKind": kind["stockKind"], "css": kind["css"], "sortField": kind["sortField"],
            "latexPre": kind["latexPre"], "latexPost": kind["latexPost"], "latexSVG": bool(kind["latexSVG"]),
            "ankiID": kind["ankiID"], "ankiOptions": json.loads(kind["ankiOptions"]),
            "fields": [{"ordinal": f["ordinal"], "name": f["name"], "font": f["font"], "fontSize": f["fontSize"],
                        "rightToLeft": bool(f["rightToLeft"]), "sticky": bool(f["sticky"]),
                        "plainText": bool(f["plainText"]), "collapsed": bool(f["collapsed"]),
                        "excludeFromSearch": bool(f["excludeFromSearch"]), "description": f["fieldDescription"],
                        "ankiID": f["ankiID"], "ankiOptions": json.loads(f["ankiOptions"])} for f in fields],
            "templates": [{"ordinal": t["ordinal"], "name": t["name"], "questionFormat": t["questionFormat"],
                           "answerFormat": t["answerFormat"], "browserQuestionFormat": t["browserQuestionFormat"],
                           "browserAnswerFormat": t["browserAnswerFormat"], "browserFont": t["browserFont"],
                           "browserFontSize": t["browserFontSize"],
                           "targetDeck": decks[t["targetDeck"]]["name"] if t["targetDeck"] is not None else None,
                           "ankiID": t["ankiID"], "ankiOptions": json.loads(t["ankiOptions"])} for t in templates],
        })
    field_names = {t["id"]: [f["name"] for f in t["fields"]] for t in out_types}

    tags_of = {}
    for source, target in note_tags:
        tags_of.setdefault(source, []).append(tags[target]["name"])
    media_of = {}
    for source, target in note_media:
        media_of.setdefault(source, []).append(media_names[target]["name"])
    out_notes = []
    notes_by_pk = {}
    for note in tables["Note"]:
        values = json.loads(note["fields"])
        if not all(isinstance(v, str) for v in values):
            raise Refusal(store_path, f"Note {note['pk']}.fields holds a value that is not a string")
        names_here = field_names[note["noteType"]]
        if len(values) != len(names_here):
            raise Refusal(store_path, f"Note {note['pk']} has {len(values)} values for {len(names_here)} fields")
        notes_by_pk[note["pk"]] = note
        out_notes.append({
            "id": note["pk"], "guid": note["guid"], "noteType": note_types[note["noteType"]]["name"],
            "fields": dict(zip(names_here, values)), "sortText": note["sortText"],
            "tags": sorted(tags_of.get(note["pk"], []), key=str.lower),
            "media": sorted(media_of.get(note["pk"], [])),
            "created": iso(note["created"]), "modified": iso(note["modified"]), "ankiID": note["ankiID"],
        })

    reviews_of = {}
    out_reviews = []
    for review in tables["Review"]:
        row = {"id": review["pk"], "card": review["card"], "time": iso(review["time"] / 1000),
               "timeMs": review["time"], "rating": review["rating"], "interval": review["interval"],
               "lastInterval": review["lastInterval"], "easeFactor": review["easeFactor"],
               "duration": review["duration"], "kind": review["kind"], "ankiID": review["ankiID"]}
        out_reviews.append(row)
        reviews_of.setdefault(review["card"], []).append(row)

    out_cards = []
    for card in tables["Card"]:
        note = notes_by_pk[card["note"]]
        note_type = note_types[note["noteType"]]
        if note_type["kind"] == 0:
            ordinals = [t["ordinal"] for t in templates_of.get(note_type["pk"], [])]
            if card["ordinal"] not in ordinals:
                raise Refusal(store_path, f"Card {card['pk']}: ordinal {card['ordinal']} names no template")
            template = next(t["name"] for t in templates_of[note_type["pk"]] if t["ordinal"] == card["ordinal"])
        else:
            numbers = {int(n) for v in json.loads(note["fields"]) for n in CLOZE_NUMBER.findall(v)}
            if card["ordinal"] + 1 not in numbers:
                notes.append(f"Card {card['pk']}: cloze number {card['ordinal'] + 1} is not in its note (an empty card)")
            template = templates_of[note_type["pk"]][0]["name"] if templates_of.get(note_type["pk"]) else None
        if card["flag"] > 7:
            raise Refusal(store_path, f"Card {card['pk']}: flag out of range")
        memory = None
        if card["stability"] is not None or card["difficulty"] is not None:
            memory = {"stability": card["stability"], "difficulty": card["difficulty"]}
        out_cards.append({
            "id": card["pk"], "note": card["note"], "noteGUID": note["guid"], "ordinal": card["ordinal"],
            "template": template, "deck": decks[card["deck"]]["name"],
            "originalDeck": decks[card["originalDeck"]]["name"] if card["originalDeck"] is not None else None,
            "type": card["type"], "queue": card["queue"], "due": card["due"],
            "dueMeaning": due_description(card, days),
            "originalDue": card["originalDue"],
            "originalDueMeaning": (days.describe(card["originalDue"])
                                   if card["originalDeck"] is not None and card["type"] == 2 else None),
            "interval": card["interval"], "easeFactor": card["easeFactor"], "repetitions": card["repetitions"],
            "lapses": card["lapses"], "remainingSteps": card["remainingSteps"], "flag": card["flag"],
            "memoryState": memory, "desiredRetention": card["desiredRetention"], "decay": card["decay"],
            "lastReview": iso(card["lastReview"]) if card["lastReview"] is not None else None,
            "originalPosition": card["originalPosition"],
            "customData": json.loads(card["customData"]) if card["customData"] else None,
            "ankiID": card["ankiID"], "ankiOptions": json.loads(card["ankiOptions"]),
            "created": iso(card["created"]), "modified": iso(card["modified"]),
            "reviews": len(reviews_of.get(card["pk"], [])),
        })

    out_decks = []
    for pk, deck in decks.items():
        if deck["kind"] == 0:
            preset_pk = deck["preset"] if deck["preset"] is not None else lowest_preset
        else:
            preset_pk = None
        out_decks.append({
            "id": pk, "name": deck["name"], "kind": "filtered" if deck["kind"] == 1 else "normal",
            "description": deck["deckDescription"], "markdownDescription": bool(deck["markdownDescription"]),
            "collapsed": bool(deck["collapsed"]),
            "preset": presets[preset_pk]["name"] if preset_pk is not None else None,
            "presetID": preset_pk, "filterTerms": json.loads(deck["filterTerms"]),
            "reschedules": bool(deck["reschedules"]), "ankiID": deck["ankiID"],
            "ankiOptions": json.loads(deck["ankiOptions"]),
        })

    out_presets = []
    for pk, preset in presets.items():
        row = {key: preset[key] for key in preset if key not in ("pk",)}
        for key in ("learningSteps", "relearningSteps", "fsrsParameters", "ankiOptions"):
            row[key] = json.loads(row[key])
        for key in ("usesFSRS", "buryNewSiblings", "buryReviewSiblings", "buryInterdaySiblings"):
            row[key] = bool(row[key])
        row["id"] = pk
        row["modified"] = iso(preset["modified"])
        out_presets.append(row)

    out_media = []
    media_folder = os.path.join(package, "Media")
    has_media_folder = check_directory(media_folder, "Media/")
    names_of_file = {}
    for name in media_names.values():
        names_of_file.setdefault(name["file"], []).append(name["name"])
    for pk, media in media_files.items():
        file_name = media["fileName"]
        check_plain_name(file_name, "MediaFile.fileName", store_path)
        if not MEDIA_FILE_NAME.match(file_name):
            raise Refusal(store_path, f"MediaFile {pk}.fileName {file_name!r} is not <sha256>.<ext>")
        if file_name.split(".")[0] != media["sha256"]:
            notes.append(f"MediaFile {pk}: fileName's hash differs from its sha256 column")
        entry = {"fileName": file_name, "sha256": media["sha256"], "sha1": media["sha1"], "mime": media["mime"],
                 "size": media["size"], "names": sorted(names_of_file.get(pk, []))}
        if not has_media_folder:
            entry["present"] = False
        else:
            fd = open_regular(os.path.join(media_folder, file_name), f"media file {file_name}", missing_ok=True)
            if fd is None:
                entry["present"] = False
            else:
                data = read_all(fd)
                os.close(fd)
                entry["present"] = True
                entry["sha256Matches"] = hashlib.sha256(data).hexdigest() == media["sha256"]
                entry["sha1Matches"] = (hashlib.sha1(data).hexdigest() == media["sha1"]) if media["sha1"] else None
                entry["sizeMatches"] = len(data) == media["size"]
        out_media.append(entry)
    unnamed = []
    if has_media_folder:
        known = {m["fileName"] for m in media_files.values()}
        for name in sorted(os.listdir(media_folder)):
            if name.startswith("."):
                continue
            if name not in known:
                unnamed.append(name)

    return {
        "revision": revision,
        "deckInfo": {"title": info["title"], "description": info["deckDescription"], "dayZero": day_zero,
                     "dayZeroTime": iso(day_zero), "dayStartsAt": info["dayStartsAt"],
                     "ankiConfig": json.loads(info["ankiConfig"])},
        "searchPending": pending[0][0] if pending else None,
        "noteTypes": out_types,
        "notes": out_notes,
        "cards": out_cards,
        "decks": out_decks,
        "presets": out_presets,
        "reviews": out_reviews,
        "tags": [{"name": t["name"], "collapsed": bool(t["collapsed"])} for t in tags.values()],
        "media": out_media,
        "mediaFilesNoRowNames": unnamed,
    }


def read_package(package, store_sql, utc_offset):
    notes = []
    try:
        info = os.stat(package)
    except FileNotFoundError:
        raise Refusal(package, "no such deck", 66)
    if not stat.S_ISDIR(info.st_mode):
        raise Refusal(package, "a deck is a directory")
    manifest = read_manifest(package, notes)
    for entry in sorted(os.listdir(package)):
        if entry.startswith("."):
            # A reader never opens .lock; a wrong one is a writer's refusal and check's error.
            if entry == ".lock" and not stat.S_ISREG(os.lstat(os.path.join(package, entry)).st_mode):
                notes.append("package: .lock is not a regular file (a writer refuses the deck)")
            continue
        if entry not in ("manifest.json", "Media", manifest["store"]) and not (
                entry.startswith(manifest["store"] + "-") and entry[len(manifest["store"]):] in ("-journal", "-wal", "-shm")):
            notes.append(f"package: unexpected entry {entry!r} (FORMAT.md: nothing else belongs in a package)")
    expected = expected_schema(store_sql)
    private = tempfile.mkdtemp(prefix="spec-reader-")
    try:
        store_copy, companions = copy_store(package, manifest["store"], private)
        contents = read_store(store_copy, package, manifest, expected, notes, utc_offset)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    document = {"manifest": manifest}
    document.update(contents)
    document["companions"] = companions
    document["readerNotes"] = notes
    return document


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    store_sql = os.path.normpath(os.path.join(here, "..", "..", "..", "Schemas", "store.sql"))
    args = list(argv[1:])
    utc_offset = int(datetime.datetime.now().astimezone().utcoffset().total_seconds())
    while len(args) >= 2 and args[0] in ("--store-sql", "--utc-offset"):
        if args[0] == "--store-sql":
            store_sql = args[1]
        else:
            utc_offset = int(args[1])
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write("usage: spec_reader.py [--store-sql PATH] [--utc-offset SECONDS] PACKAGE\n")
        return 64
    try:
        document = read_package(args[0], store_sql, utc_offset)
    except Refusal as refusal:
        sys.stderr.write(f"spec_reader: error: {refusal.path}: {refusal.message}\n")
        return refusal.status
    except sqlite3.DatabaseError as error:
        sys.stderr.write(f"spec_reader: error: {args[0]}: the store can't be read: {error}\n")
        return 65
    json.dump(document, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
