#!/usr/bin/env python3
"""Imports an .apkg into a fresh collection with current Anki's own importer, and prints
what Anki now holds as JSON on stdout (for the interop tests of the Swift Anki module).

usage: import_with_anki.py PACKAGE

Output: {"anki_version", "log": {"new", "updated", "duplicate", "conflicting"},
         "notetypes": [{name, kind, fields, templates: [[name, qfmt, afmt]]}],
         "decks": [names], "notes": [{guid, notetype, fields: {name: value}, tags}],
         "cards": [{guid, ord, deck, type, queue, ivl, factor, reps, lapses, due}],
         "revlog": [{card_guid, card_ord, ease, ivl, last_ivl, factor, time, type}],
         "media": {name: sha1 hex}}
Exits 2 if the anki package is missing, 1 if the import fails.
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile


def main() -> int:
    try:
        from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
        from anki.buildinfo import version
    except ImportError as error:
        print(f"the anki package is not installed: {error}", file=sys.stderr)
        return 2
    package = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="anki-import-")
    try:
        col = Collection(os.path.join(work, "collection.anki2"))
        try:
            request = ImportAnkiPackageRequest(
                package_path=package,
                options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False))
            result = col.import_anki_package(request)
            log = result.log
            out = {
                "anki_version": version,
                "log": {"new": len(log.new), "updated": len(log.updated),
                        "duplicate": len(log.duplicate), "conflicting": len(log.conflicting)},
                "notetypes": [], "decks": [], "notes": [], "cards": [], "revlog": [], "media": {},
            }
            for entry in col.models.all_names_and_ids():
                model = col.models.get(entry.id)
                out["notetypes"].append({
                    "name": model["name"], "kind": model["type"],
                    "fields": [f["name"] for f in model["flds"]],
                    "templates": [[t["name"], t["qfmt"], t["afmt"]] for t in model["tmpls"]],
                })
            out["decks"] = sorted(d.name for d in col.decks.all_names_and_ids())
            guid_of = {}
            for nid in col.find_notes(""):
                note = col.get_note(nid)
                guid_of[nid] = note.guid
                out["notes"].append({"guid": note.guid, "notetype": note.note_type()["name"],
                                     "fields": dict(note.items()), "tags": note.tags})
            card_key = {}
            for cid in col.find_cards(""):
                card = col.get_card(cid)
                card_key[cid] = (guid_of[card.nid], card.ord)
                out["cards"].append({"guid": guid_of[card.nid], "ord": card.ord,
                                     "deck": col.decks.name(card.did), "type": card.type,
                                     "queue": card.queue, "ivl": card.ivl, "factor": card.factor,
                                     "reps": card.reps, "lapses": card.lapses, "due": card.due})
            for cid, ease, ivl, last, factor, taken, kind in col.db.all(
                    "select cid, ease, ivl, lastIvl, factor, time, type from revlog order by id"):
                guid, ord_ = card_key.get(cid, ("", -1))
                out["revlog"].append({"card_guid": guid, "card_ord": ord_, "ease": ease, "ivl": ivl,
                                      "last_ivl": last, "factor": factor, "time": taken, "type": kind})
            media_dir = col.media.dir()
            for name in sorted(os.listdir(media_dir)):
                with open(os.path.join(media_dir, name), "rb") as f:
                    out["media"][name] = hashlib.sha1(f.read()).hexdigest()
        finally:
            col.close()
    except Exception as error:  # the test prints this to explain a failed import
        print(f"import failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    json.dump(out, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
