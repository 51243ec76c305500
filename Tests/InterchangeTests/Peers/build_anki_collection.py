#!/usr/bin/env python3
"""Builds an Anki collection with current Anki's own Python API and exports it as every kind
of package, in one process (Anki is slow to start).

    python3 build_anki_collection.py OUTDIR

writes into OUTDIR:
  current.apkg    current layout (collection.anki21b, zstd, schema 18), with scheduling
  legacy2.apkg    legacy layout (collection.anki21, schema 11), with scheduling
  legacy1.apkg    the same collection as Anki 2.0 named it (collection.anki2, no meta entry)
  full.colpkg     the whole collection (current layout)
  truth.json      what the collection holds, read back through Anki's API and its database
                  (note types with every option, notes, every card row with its data JSON,
                  decks with their presets, every revlog row, media names with SHA-1)
  edited.apkg     an edited copy, as a user editing in Anki makes it (see edited_copy)
  edited-legacy.apkg  the same in the legacy layout
  updates.json    the edits, and what Anki's own import of edited.apkg over current.apkg (and
                  the other way round) did under each update condition

The collection: every stock note type (Basic and its variants, Cloze, Image Occlusion), a
custom type with 5 fields (with editor options), 3 templates (browser formats, a target
deck) and its own CSS and LaTeX header; nested decks with descriptions and two presets (one
with its own FSRS weights); FSRS on and 40 simulated days of reviews, so cards have memory
states; suspended, buried (by hand and as siblings) and flagged cards; custom data; a card in
a filtered deck; two media names with equal bytes.
"""

import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import zipfile
import zlib
import struct

from anki.collection import Collection
from anki.import_export_pb2 import ExportAnkiPackageOptions
from anki.scheduler.v3 import CardAnswer

DAY = 86400


def png(width, height, colour):
    """A tiny valid PNG of one colour (image occlusion needs a real image)."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(colour) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def shift_back_one_day(col):
    """Moves everything that happened one day into the past, so "now" is a day later for the
    scheduler: the collection's creation, review times, learning due times, last-review times."""
    col.db.execute("update col set crt = crt - ?", DAY)
    col.db.execute("update revlog set id = -(id - ?)", DAY * 1000)
    col.db.execute("update revlog set id = -id")
    col.db.execute("update cards set due = due - ? where queue in (1, 4)", DAY)
    col.db.execute("update cards set mod = mod - ?", DAY)
    col.db.execute("update notes set mod = mod - ?", DAY)
    for cid, data in col.db.all("select id, data from cards where data like '%lrt%'"):
        parsed = json.loads(data)
        parsed["lrt"] = parsed["lrt"] - DAY
        col.db.execute("update cards set data = ? where id = ?", json.dumps(parsed, separators=(",", ":")), cid)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # Anki commits often: in memory-backed /dev/shm that costs no disk flushes.
    work = tempfile.mkdtemp(prefix="anki-build-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    col = Collection(os.path.join(work, "collection.anki2"))
    rng = random.Random(20261201)
    col.set_config("fsrs", True)

    # Presets: the default one, and "Intense" with its own limits, steps, retention and weights.
    default_conf = col.decks.get_config(1)
    default_conf["new"]["perDay"] = 25
    default_conf["rev"]["perDay"] = 250
    col.decks.update_config(default_conf)
    intense = col.decks.add_config_returning_id("Intense")
    conf = col.decks.get_config(intense)
    conf["new"]["perDay"] = 35
    conf["rev"]["perDay"] = 500
    conf["new"]["delays"] = [2.0, 15.0, 60.0]
    conf["lapse"]["delays"] = [5.0, 30.0]
    conf["rev"]["maxIvl"] = 3650
    conf["desiredRetention"] = 0.85
    conf["new"]["bury"] = True
    conf["lapse"]["leechFails"] = 6
    conf["fsrsParams6"] = [0.2172, 1.1771, 3.2602, 16.1507, 7.0114, 0.57, 2.0966, 0.0069, 1.5261, 0.112,
                           1.0178, 1.849, 0.1133, 0.3127, 2.2934, 0.2191, 3.0004, 0.7536, 0.3332, 0.1437, 0.2]
    col.decks.update_config(conf)

    # Nested decks with descriptions.
    decks = {}
    for name, desc, preset in [
        ("Languages", "All <b>languages</b>", None),
        ("Languages::Japanese", "Japanese, with the <i>Intense</i> preset", intense),
        ("Languages::Japanese::Vocab", "Words **in Markdown**", intense),
        ("Science", "Facts about the world", None),
        ("Science::Chemistry", "", None),
    ]:
        did = col.decks.id(name)
        deck = col.decks.get(did)
        deck["desc"] = desc
        if name.endswith("Vocab"):
            deck["md"] = True
        if preset is not None:
            deck["conf"] = preset
        col.decks.save(deck)
        decks[name] = did

    # Media: two names with equal bytes, and a sound.
    image = png(4, 3, (200, 30, 30))
    col.media.write_data("red.png", image)
    col.media.write_data("red-copy.png", image)
    col.media.write_data("hello.mp3", b"ID3\x03\x00\x00\x00\x00\x00\x00fake mp3 bytes")

    # Stock note types.
    basic = col.models.by_name("Basic")
    reversed_ = col.models.by_name("Basic (and reversed card)")
    optional = col.models.by_name("Basic (optional reversed card)")
    typing = col.models.by_name("Basic (type in the answer)")
    cloze = col.models.by_name("Cloze")

    def add(model, deck, fields, tags=()):
        note = col.new_note(model)
        for index, value in enumerate(fields):
            note.fields[index] = value
        note.tags = list(tags)
        col.add_note(note, decks[deck])
        return note

    for i in range(8):
        add(basic, "Science", [f"Question {i}", f"Answer {i}"], ["science", "level::one" if i % 2 else "level::two"])
    add(basic, "Science::Chemistry", ['Symbol of gold <img src="red.png">', "Au"], ["chemistry"])
    add(basic, "Science::Chemistry", ['Same picture <img src="red-copy.png">', "[sound:hello.mp3]"], ["chemistry", "media"])
    for i in range(5):
        add(reversed_, "Languages", [f"word{i}", f"mot{i}"], ["french"])
    add(optional, "Languages", ["chien", "dog", "y"], ["french"])
    add(optional, "Languages", ["chat", "cat", ""], ["french"])
    add(typing, "Languages", ["Capital of France?", "Paris"], [])
    for i in range(4):
        add(cloze, "Science", [f"{{{{c1::Water}}}} boils at {{{{c2::{100 + i}}}}} degrees", f"extra {i}"], ["cloze"])

    # Image occlusion (Anki's own note type, added on demand).
    col.add_image_occlusion_notetype()
    io_type = col.models.by_name("Image Occlusion")
    image_path = os.path.join(work, "occlusion.png")
    with open(image_path, "wb") as handle:
        handle.write(png(8, 8, (30, 200, 30)))
    col.add_image_occlusion_note(
        notetype_id=io_type["id"], image_path=image_path,
        occlusions="{{c1::image-occlusion:rect:left=.1:top=.1:width=.3:height=.2:oi=1}}"
                   "{{c2::image-occlusion:ellipse:left=.5:top=.5:width=.2:height=.2:oi=1}}",
        header="Parts", back_extra="A green square", tags=["io"])

    # A custom note type: 5 fields with editor options, 3 templates, its own CSS and LaTeX.
    mm = col.models
    custom = mm.new("Japanese Vocab")
    for name in ["Word", "Reading", "Meaning", "Example", "Notes"]:
        mm.add_field(custom, mm.new_field(name))
    custom["flds"][0]["font"] = "Noto Sans JP"
    custom["flds"][0]["size"] = 28
    custom["flds"][1]["plainText"] = True
    custom["flds"][2]["description"] = "English meaning"
    custom["flds"][3]["rtl"] = True
    custom["flds"][4]["sticky"] = True
    custom["flds"][4]["collapsed"] = True
    custom["flds"][4]["excludeFromSearch"] = True
    for name, qfmt, afmt in [
        ("Recognition", "{{Word}}", "{{FrontSide}}<hr id=answer>{{Reading}}<br>{{Meaning}}"),
        ("Recall", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}} ({{Reading}})"),
        ("Example", "{{#Example}}{{cloze:Example}}{{/Example}}{{^Example}}{{Example}}{{/Example}}",
         "{{Example}}<br>{{Notes}}"),
    ]:
        template = mm.new_template(name)
        template["qfmt"] = qfmt
        template["afmt"] = afmt
        mm.add_template(custom, template)
    custom["tmpls"][2]["qfmt"] = "{{#Example}}Use it: {{Word}}{{/Example}}"
    custom["tmpls"][2]["bqfmt"] = "{{Word}} (example)"
    custom["tmpls"][2]["bafmt"] = "{{Example}}"
    custom["tmpls"][2]["bfont"] = "Arial"
    custom["tmpls"][2]["bsize"] = 14
    custom["tmpls"][2]["did"] = decks["Languages::Japanese"]
    custom["css"] = ".card { font-family: 'Noto Sans JP'; font-size: 30px; color: #123; }\n.jp { color: red; }\n"
    custom["sortf"] = 2
    custom["latexPre"] = "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
    custom["latexPost"] = "\\end{document}\n% custom"
    mm.add(custom)
    custom = mm.by_name("Japanese Vocab")
    for i, (word, reading, meaning, example) in enumerate([
        ("猫", "ねこ", "cat", "猫が好き"), ("犬", "いぬ", "dog", ""), ("水", "みず", "water", "水を飲む"),
        ("火", "ひ", "fire", ""), ("山", "やま", "mountain", "山に登る"), ("川", "かわ", "river", ""),
    ]):
        add(custom, "Languages::Japanese::Vocab", [word, reading, meaning, example, f"note {i}"], ["japanese", "jlpt::n5"])

    # 40 simulated days of reviews with FSRS on.
    for day in range(40):
        shift_back_one_day(col)
        answered = 0
        for top in ["Languages", "Science"]:
            col.decks.select(decks[top])
            limit = rng.randint(4, 12)
            done = 0
            while done < limit:
                queued = col.sched.get_queued_cards(fetch_limit=1)
                if not queued.cards:
                    break
                card = col.get_card(queued.cards[0].card.id)
                card.start_timer()
                states = queued.cards[0].states
                rating = rng.choices([CardAnswer.AGAIN, CardAnswer.HARD, CardAnswer.GOOD, CardAnswer.EASY],
                                     weights=[15, 10, 60, 15])[0]
                answer = col.sched.build_answer(card=card, states=states, rating=rating)
                col.sched.answer_card(answer)
                done += 1
            answered += done
        print(f"day {day}: {answered} answers", file=sys.stderr) if os.environ.get("BUILD_VERBOSE") else None
    # Answer times: a little spread, as real answers have.
    for rid, in col.db.all("select id from revlog"):
        col.db.execute("update revlog set time = ? where id = ?", rng.randint(800, 25000), rid)

    # Queue states, flags, custom data.
    new_cards = col.db.list("select id from cards where type = 0 order by id")
    if len(new_cards) < 3:
        # How many new cards the simulated days introduce depends on FSRS's fuzz (random from one
        # run to the next): three are needed below, so the latest review cards are made new again.
        latest = col.db.list("select id from cards where type = 2 order by id desc limit ?", 3 - len(new_cards))
        col.sched.schedule_cards_as_new(latest, restore_position=False, reset_counts=False)
        new_cards = col.db.list("select id from cards where type = 0 order by id")
    cards = col.db.list("select id from cards where type = 2 order by id")
    col.sched.suspend_cards([cards[0], new_cards[0]])
    col.sched.bury_cards([cards[1]], manual=True)
    col.sched.bury_cards([new_cards[1]], manual=False)
    col.set_user_flag_for_cards(1, [cards[2]])
    col.set_user_flag_for_cards(4, [cards[3]])
    col.set_user_flag_for_cards(7, [new_cards[2]])
    card = col.get_card(cards[4])
    card.custom_data = '{"v":"x1","n":3}'
    col.update_card(card)

    # A filtered deck holding two review cards of Science.
    filtered = col.decks.new_filtered("Cram")
    deck = col.decks.get(filtered)
    deck["terms"] = [["deck:Science is:review -is:suspended -is:buried", 2, 1]]
    deck["resched"] = True
    col.decks.save(deck)
    col.sched.rebuild_filtered_deck(filtered)

    truth = dump(col)
    truth["filteredDeckID"] = filtered

    options = dict(with_scheduling=True, with_deck_configs=True, with_media=True)
    col.export_anki_package(out_path=os.path.join(out, "current.apkg"),
                            options=ExportAnkiPackageOptions(legacy=False, **options), limit=None)
    col.export_anki_package(out_path=os.path.join(out, "legacy2.apkg"),
                            options=ExportAnkiPackageOptions(legacy=True, **options), limit=None)
    # Anki 2.0's layout: the schema-11 collection as collection.anki2, nothing else of 2.1.
    with zipfile.ZipFile(os.path.join(out, "legacy2.apkg")) as source, \
            zipfile.ZipFile(os.path.join(out, "legacy1.apkg"), "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            if item.filename in ("collection.anki2", "meta"):
                continue
            data = source.read(item.filename)
            target.writestr("collection.anki2" if item.filename == "collection.anki21" else item.filename, data)
    truth["packages"] = {name: sorted(zipfile.ZipFile(os.path.join(out, name)).namelist())
                         for name in ["current.apkg", "legacy2.apkg", "legacy1.apkg"]}
    col.export_collection_package(os.path.join(out, "full.colpkg"), include_media=True, legacy=False)
    truth["packages"]["full.colpkg"] = sorted(zipfile.ZipFile(os.path.join(out, "full.colpkg")).namelist())
    with open(os.path.join(out, "truth.json"), "w") as handle:
        json.dump(truth, handle, ensure_ascii=False, indent=1, sort_keys=True)
    col.close()
    edited_copy(os.path.join(work, "collection.anki2"), out, work)
    shutil.rmtree(work, ignore_errors=True)


def edited_copy(path, out, work):
    """Edits the collection as a user would in Anki after sharing current.apkg: two notes' fields
    changed, a tag added to a third, a reverse card asked for on an optional-reversed note (a new
    card ordinal), a card of an edited note rescheduled, the CSS and a template of a stock type
    changed (same fields), a field added to the custom type (a changed schema) and one of its
    notes edited, a deck's description and another's preset changed, a preset's options changed,
    one note added. Every note of the original is over a day old, so each edit is
    newer. Exports edited.apkg and edited-legacy.apkg, then imports them with Anki itself over
    current.apkg into new collections (and current.apkg over edited.apkg), once per update
    condition, and writes what Anki did into updates.json."""
    from anki.import_export_pb2 import (ImportAnkiPackageOptions, ImportAnkiPackageRequest,
                                        ImportAnkiPackageUpdateCondition as Condition)
    col = Collection(path)
    edits = {}
    basic = col.models.by_name("Basic")
    notes = {col.get_note(nid).fields[0]: col.get_note(nid)
             for nid in col.db.list("select id from notes order by id")}
    for front in ["Question 0", "Question 1"]:
        note = notes[front]
        note.fields[1] = note.fields[1] + " (edited)"
        col.update_note(note)
        edits.setdefault("fieldsChanged", []).append(note.guid)
    note = notes["Question 2"]
    note.tags.append("edited")
    col.update_note(note)
    edits["tagAdded"] = note.guid
    note = notes["chat"]
    note.fields[2] = "y"
    col.update_note(note)
    edits["newOrdinal"] = note.guid
    rescheduled = col.db.scalar("select id from cards where nid = ? order by ord limit 1", notes["Question 0"].id)
    col.sched.set_due_date([rescheduled], "9")
    edits["rescheduled"] = notes["Question 0"].guid
    reversed_ = col.models.by_name("Basic (and reversed card)")
    reversed_["css"] += "\n.edited { color: blue; }\n"
    reversed_["tmpls"][0]["qfmt"] = "<div class=edited>{{Front}}</div>"
    col.models.update_dict(reversed_)
    # Anki stamps a note type it adds on import with the time of the import (SampleDeck keeps the
    # package's): an author's edit made after the user's import is what --update newer updates,
    # so the edit is dated an hour on (the imports below run within the same second otherwise).
    col.db.execute("update notetypes set mtime_secs = mtime_secs + 3600 where id = ?", reversed_["id"])
    edits["typeUpdated"] = reversed_["name"]
    custom = col.models.by_name("Japanese Vocab")
    col.models.add_field(custom, col.models.new_field("Source"))
    col.models.update_dict(custom)
    edits["typeChanged"] = custom["name"]
    note = col.get_note(notes["猫"].id)  # it has the new field now
    note.fields[2] = "cat (edited)"
    col.update_note(note)
    edits["changedTypeNote"] = note.guid
    # Decks and presets: a description changed, a deck moved from the default preset to
    # "Intense", and Intense's limits and retention changed. Dated an hour on, as the note type.
    science = col.decks.by_name("Science")
    science["desc"] = "Facts about the world (edited)"
    col.decks.save(science)
    chemistry = col.decks.by_name("Science::Chemistry")
    intense = col.decks.config_dict_for_deck_id(col.decks.id("Languages::Japanese"))
    chemistry["conf"] = intense["id"]
    col.decks.save(chemistry)
    col.db.execute("update decks set mtime_secs = mtime_secs + 3600 where id in (?, ?)", science["id"], chemistry["id"])
    edits["deckDescribed"] = science["name"]
    edits["deckPreset"] = chemistry["name"]
    edits["presetUpdated"] = intense["name"]
    edits["presetNewPerDay"] = [intense["new"]["perDay"], intense["new"]["perDay"] + 7]
    intense["new"]["perDay"] += 7
    intense["desiredRetention"] = 0.87
    col.decks.update_config(intense)
    col.db.execute("update deck_config set mtime_secs = mtime_secs + 3600 where id = ?", intense["id"])
    note = col.new_note(basic)
    note.fields[0] = "Added later"
    note.fields[1] = "New answer"
    note.tags = ["new"]
    col.add_note(note, col.decks.id("Science"))
    edits["added"] = note.guid
    options = dict(with_scheduling=True, with_deck_configs=True, with_media=True)
    col.export_anki_package(out_path=os.path.join(out, "edited.apkg"),
                            options=ExportAnkiPackageOptions(legacy=False, **options), limit=None)
    col.export_anki_package(out_path=os.path.join(out, "edited-legacy.apkg"),
                            options=ExportAnkiPackageOptions(legacy=True, **options), limit=None)
    col.close()

    conditions = {"newer": Condition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
                  "always": Condition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_ALWAYS,
                  "never": Condition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_NEVER}
    anki = {}
    # "merge-" jobs: the second import with Anki's "merge note types" option.
    jobs = [(label + name, first, second, condition, False)
            for label, first, second in [("", "current.apkg", "edited.apkg"), ("reverse-", "edited.apkg", "current.apkg")]
            for name, condition in conditions.items()]
    jobs += [(f"merge-{label}{name}", first, second, conditions[name], True)
             for label, first, second in [("", "current.apkg", "edited.apkg"), ("reverse-", "edited.apkg", "current.apkg")]
             for name in ["newer", "never"]]
    for job, first, second, condition, merge in jobs:
        target = Collection(os.path.join(work, f"import-{job}.anki2"))
        for package, update, merging in [(first, Condition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, False),
                                         (second, condition, merge)]:
            request = ImportAnkiPackageRequest(package_path=os.path.join(out, package), options=ImportAnkiPackageOptions(
                update_notes=update, update_notetypes=update, with_scheduling=True, with_deck_configs=True,
                merge_notetypes=merging))
            log = target.import_anki_package(request).log
        result = {"new": len(log.new), "updated": len(log.updated), "duplicate": len(log.duplicate),
                  "conflicting": len(log.conflicting), "notes": {}, "cards": {}}
        for guid, flds, tags, mid in target.db.all("select guid, flds, tags, mid from notes"):
            result["notes"][guid] = {"fields": flds.split("\x1f"), "tags": tags.split(),
                                     "noteType": target.models.get(mid)["name"]}
        for guid, count in target.db.all("select n.guid, count(*) from cards c join notes n on n.id = c.nid group by n.guid"):
            result["cards"][guid] = count
        result["noteTypes"] = sorted([m["name"], [f["name"] for f in m["flds"]], m["css"]] for m in target.models.all())
        result["templates"] = {m["name"]: [t["name"] for t in m["tmpls"]] for m in target.models.all()}
        result["cardOrdinals"] = {guid: sorted(o for (o,) in target.db.all(
            "select c.ord from cards c join notes n on n.id = c.nid where n.guid = ?", guid)) for guid in result["cards"]}
        presets = {c["id"]: c for c in target.decks.all_config()}
        result["decks"] = {d["name"]: {"desc": d["desc"], "md": bool(d.get("md", False)),
                                       "preset": presets[d["conf"]]["name"] if d["conf"] in presets else None}
                           for d in target.decks.all() if not d["dyn"]}
        result["presets"] = {c["name"]: {"newPerDay": c["new"]["perDay"], "desiredRetention": c["desiredRetention"]}
                             for c in presets.values()}
        anki[job] = result
        target.close()
    with open(os.path.join(out, "updates.json"), "w") as handle:
        json.dump({"edits": edits, "anki": anki}, handle, ensure_ascii=False, indent=1, sort_keys=True)


def dump(col):
    """What the collection holds, as JSON (note types, decks and presets in schema 11's keys)."""
    truth = {"crt": col.crt, "fsrs": bool(col.get_config("fsrs", False))}
    truth["noteTypes"] = sorted(col.models.all(), key=lambda m: m["id"])
    truth["decks"] = sorted(col.decks.all(), key=lambda d: d["id"])
    truth["presets"] = sorted(col.decks.all_config(), key=lambda c: c["id"])
    truth["notes"] = [
        {"id": nid, "guid": guid, "mid": mid, "mod": mod, "tags": tags.split(), "fields": flds.split("\x1f")}
        for nid, guid, mid, mod, tags, flds in col.db.all("select id, guid, mid, mod, tags, flds from notes order by id")]
    columns = ["id", "nid", "did", "ord", "mod", "type", "queue", "due", "ivl", "factor", "reps", "lapses",
               "left", "odue", "odid", "flags", "data"]
    truth["cards"] = [dict(zip(columns, row))
                      for row in col.db.all(f"select {', '.join(columns)} from cards order by id")]
    for card in truth["cards"]:
        backend = col.get_card(card["id"])
        state = backend.memory_state
        card["stability"] = state.stability if state is not None else None
        card["difficulty"] = state.difficulty if state is not None else None
        card["desiredRetention"] = backend.desired_retention
        card["customData"] = backend.custom_data
    # Read after the cards: the scheduler's first use may unbury cards of an earlier day.
    truth["today"] = col.sched.today
    columns = ["id", "cid", "usn", "ease", "ivl", "lastIvl", "factor", "time", "type"]
    truth["revlog"] = [dict(zip(columns, row))
                       for row in col.db.all(f"select {', '.join(columns)} from revlog order by id")]
    media = {}
    folder = col.media.dir()
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            media[name] = hashlib.sha1(handle.read()).hexdigest()
    truth["media"] = media
    return truth


if __name__ == "__main__":
    main()
