#!/usr/bin/env python3
"""Builds the Anki package fixtures in this folder with two real peers.

- genanki (legacy packages, what most shared decks were built with):
    genanki-legacy.apkg      collection.anki2, `media` JSON, entries 0, 1, ...
- the `anki` package (current Anki's own backend):
    anki-current.apkg        meta v3, zstd collection.anki21b, zstd media, protobuf media map
    anki-legacy.apkg         "support older Anki versions": collection.anki21, JSON media map
    anki-collection.colpkg   a whole collection in the current format

Every fixture holds the same kinds of content: basic, basic-and-reversed and cloze notes,
a custom note type with three fields, tags, a subdeck (`Parent::Child`) and two media files.
The files are small; run `python3 make_fixtures.py` (needs `pip install genanki anki`)
to rebuild them. Ids and timestamps change on each run; the tests check content only.
"""
import os
import shutil
import struct
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def tiny_png() -> bytes:
    """A valid 2x2 red PNG, built by hand so the bytes are the same on every run."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def tiny_sound() -> bytes:
    """Stand-in bytes for a sound file (Anki does not decode media); 1,000 bytes, all values."""
    return bytes((i * 7 + 3) % 256 for i in range(1000))


MEDIA = {"red dot.png": tiny_png(), "bonjour.mp3": tiny_sound()}

# The content every fixture carries (front, back, tags) per kind.
BASIC = [("bonjour", "hello <img src=\"red dot.png\">", ["french", "greeting"]),
         ("merci", "thank you [sound:bonjour.mp3]", ["french"])]
REVERSED = [("le chat", "the cat", ["french", "animals"])]
CLOZE = [("{{c1::Paris}} is the capital of {{c2::France}}", "geography", ["geo"])]
VOCAB = [("maison", "house", "La maison est grande.", ["french", "nouns"])]


def make_genanki(path: str, media_dir: str) -> None:
    import genanki

    vocab = genanki.Model(
        1607392319, "Vocab (3 fields)",
        fields=[{"name": "Word"}, {"name": "Meaning"}, {"name": "Example"}],
        templates=[{"name": "Recognize",
                    "qfmt": "{{Word}}",
                    "afmt": "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Example}}"}],
        css=".card { font-family: serif; }")
    parent = genanki.Deck(2059400110, "Genanki Test", description="Made by genanki")
    child = genanki.Deck(2059400111, "Genanki Test::Sub")
    for front, back, tags in BASIC:
        parent.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=[front, back], tags=tags))
    for front, back, tags in REVERSED:
        child.add_note(genanki.Note(model=genanki.BASIC_AND_REVERSED_CARD_MODEL, fields=[front, back], tags=tags))
    for text, extra, tags in CLOZE:
        parent.add_note(genanki.Note(model=genanki.CLOZE_MODEL, fields=[text, extra], tags=tags))
    for word, meaning, example, tags in VOCAB:
        child.add_note(genanki.Note(model=vocab, fields=[word, meaning, example], tags=tags))
    package = genanki.Package([parent, child])
    package.media_files = [os.path.join(media_dir, name) for name in sorted(MEDIA)]
    package.write_to_file(path)


def make_anki(current: str, legacy: str, colpkg: str, work: str) -> None:
    from anki.collection import Collection, ExportAnkiPackageOptions, ExportLimit, DeckIdLimit

    col = Collection(os.path.join(work, "collection.anki2"))
    try:
        for name, data in MEDIA.items():
            col.media.write_data(name, data)
        parent = col.decks.id("Anki Test")
        child = col.decks.id("Anki Test::Sub")
        deck = col.decks.get(parent)
        deck["desc"] = "Made by the anki package"
        col.decks.save(deck)

        basic = col.models.by_name("Basic")
        reversed_ = col.models.by_name("Basic (and reversed card)")
        cloze = col.models.by_name("Cloze")
        vocab = col.models.new("Vocab (3 fields)")
        for field in ("Word", "Meaning", "Example"):
            col.models.add_field(vocab, col.models.new_field(field))
        template = col.models.new_template("Recognize")
        template["qfmt"] = "{{Word}}"
        template["afmt"] = "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Example}}"
        col.models.add_template(vocab, template)
        col.models.add(vocab)
        vocab = col.models.by_name("Vocab (3 fields)")

        def add(model, fields, tags, deck_id):
            note = col.new_note(model)
            for i, value in enumerate(fields):
                note.fields[i] = value
            note.tags = tags
            col.add_note(note, deck_id)
            return note

        first = None
        for front, back, tags in BASIC:
            note = add(basic, [front, back], tags, parent)
            first = first or note
        for front, back, tags in REVERSED:
            add(reversed_, [front, back], tags, child)
        for text, extra, tags in CLOZE:
            add(cloze, [text, extra], tags, parent)
        for word, meaning, example, tags in VOCAB:
            add(vocab, [word, meaning, example], tags, child)

        # Scheduling on the first note's card: a review card with two reviews in its history.
        card = first.cards()[0]
        col.db.execute("update cards set type=2, queue=2, due=?, ivl=12, factor=2650, reps=2, lapses=1 where id=?",
                       col.sched.today + 5, card.id)
        for i, (ease, ivl, last) in enumerate([(3, 3, 0), (3, 12, 3)]):
            col.db.execute("insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                           "values (?, ?, -1, ?, ?, ?, 2650, ?, 1)",
                           1_700_000_000_000 + i * 86_400_000, card.id, ease, ivl, last, 4000 + i)
        col.set_schema_modified()

        everything = ExportLimit(whole_collection=True) if hasattr(ExportLimit, "whole_collection") else None
        for path, legacy_flag in ((current, False), (legacy, True)):
            options = ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True,
                                               with_media=True, legacy=legacy_flag)
            col.export_anki_package(out_path=path, options=options, limit=everything)
        col.export_collection_package(colpkg, include_media=True, legacy=False)
    finally:
        col.close()


def main() -> int:
    work = tempfile.mkdtemp(prefix="anki-fixtures-")
    try:
        media_dir = os.path.join(work, "media")
        os.mkdir(media_dir)
        for name, data in MEDIA.items():
            with open(os.path.join(media_dir, name), "wb") as f:
                f.write(data)
        make_genanki(os.path.join(HERE, "genanki-legacy.apkg"), media_dir)
        col_dir = os.path.join(work, "col")
        os.mkdir(col_dir)
        make_anki(os.path.join(HERE, "anki-current.apkg"), os.path.join(HERE, "anki-legacy.apkg"),
                  os.path.join(HERE, "anki-collection.colpkg"), col_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
