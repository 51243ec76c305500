#!/usr/bin/env python3
"""Imports packages into fresh collections with current Anki's own importer and dumps every
property the collection then holds, for the round-trip comparison (AnkiRoundTripTests), in one
process (Anki is slow to start).

    python3 anki_roundtrip.py JOBS.json OUT.json

JOBS.json: {"jobs": [{"name": str, "kind": "apkg" | "colpkg", "packages": [path, ...]}]}.
Each job gets a new collection; its packages are imported in order (.apkg with scheduling and
presets and Anki's default update rule; a .colpkg replaces the collection). OUT.json:
{name: {"logs": [{new, updated, duplicate, conflicting}], "dump": {...}}}.

The dump holds, keyed so that a difference names its place:
  noteTypes  by id: Anki's schema-11 JSON of the type (every option, fields, templates, CSS);
  notes      by id: every column of the notes table;
  cards      by id: every column of the cards table, `data` parsed, decks by name;
  decks      by name: Anki's schema-11 JSON of the deck (description, preset, terms, …);
  presets    by id: Anki's schema-11 JSON of the deck config;
  revlog     by id: every column of the revlog table, verbatim;
  tags       by name: the tags table's columns;
  media      by name: the SHA-1 of the file's bytes in the media folder;
  config     (.colpkg only) the collection's configuration, key → value;
  col        crt, and for a .colpkg the schema version.
Note types and decks the fresh collection had before the first import, and unchanged by it,
are left out (their ids and times differ from one fresh collection to the next).
"""

import hashlib
import json
import os

from anki_jobs import import_job, run_jobs


def deck_name(names, did):
    return names.get(did, f"<missing deck {did}>") if did else None


def full_dump(col, skip_types, skip_decks, whole):
    names = {d["id"]: d["name"] for d in col.decks.all()}
    dump = {"col": {"crt": col.crt}}
    if whole:
        dump["col"]["ver"] = col.db.scalar("select ver from col")
        dump["config"] = col.all_config()
    dump["noteTypes"] = {str(m["id"]): m for m in col.models.all()
                         if (m["id"], m["mod"]) not in skip_types}
    note_columns = ["id", "guid", "mid", "mod", "usn", "tags", "flds", "sfld", "csum", "flags", "data"]
    dump["notes"] = {str(row[0]): dict(zip(note_columns, row))
                     for row in col.db.all(f"select {', '.join(note_columns)} from notes")}
    card_columns = ["id", "nid", "did", "ord", "mod", "usn", "type", "queue", "due", "ivl", "factor", "reps",
                    "lapses", "left", "odue", "odid", "flags", "data"]
    cards = {}
    for row in col.db.all(f"select {', '.join(card_columns)} from cards"):
        card = dict(zip(card_columns, row))
        card["did"] = deck_name(names, card["did"])
        card["odid"] = deck_name(names, card["odid"])
        card["data"] = json.loads(card["data"]) if card["data"] else {}
        cards[str(card["id"])] = card
    dump["cards"] = cards
    decks = {}
    for deck in col.decks.all():
        if (deck["id"], deck["mod"]) in skip_decks:
            continue
        deck = dict(deck)
        deck["id"] = "<id of " + deck["name"] + ">"
        decks[deck["name"]] = deck
    dump["decks"] = decks
    dump["presets"] = {str(c["id"]): c for c in col.decks.all_config()}
    revlog_columns = ["id", "cid", "usn", "ease", "ivl", "lastIvl", "factor", "time", "type"]
    dump["revlog"] = {str(row[0]): dict(zip(revlog_columns, row))
                      for row in col.db.all(f"select {', '.join(revlog_columns)} from revlog")}
    dump["tags"] = {row[0]: {"usn": row[1], "collapsed": bool(row[2])}
                    for row in col.db.all("select tag, usn, collapsed from tags")}
    media = {}
    folder = col.media.dir()
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            media[name] = hashlib.sha1(handle.read()).hexdigest()
    dump["media"] = media
    return dump


def run_job(job, work):
    whole = job["kind"] == "colpkg"
    skip = {"types": set(), "decks": set()}

    def remember_fresh(col):
        skip["types"] = {(m["id"], m["mod"]) for m in col.models.all()}
        skip["decks"] = {(d["id"], d["mod"]) for d in col.decks.all()}

    col, logs = import_job(job, work, before_import=remember_fresh)
    dump = full_dump(col, skip["types"], skip["decks"], whole)
    col.close()
    return {"logs": logs, "dump": dump}


if __name__ == "__main__":
    run_jobs(run_job, "anki-roundtrip-")
