"""Builds study queues in current Anki (the `anki` package) for random deck trees and card states.

Usage: python3 anki_queue_peer.py IN.json OUT.json SCRATCH_DIR
(Not under ANKI_TEST_MODE: with it, Anki's intraday learning queue left out cards due by now
at some hours of the day: the comparison failed at 02:20 UTC and passed at 00:57.)
IN is a list of cases: {"presets": [{new_per_day, reviews_per_day, bury_new, bury_reviews,
bury_interday, new_sort, new_mix, interday_mix}], "decks": [[name, preset index], ...] (the first is
the root), "notes": [[deck index, [[queue, due offset, reps], [..]]], ...]} — each note of the
"Basic (and reversed card)" type gets its two cards' states (queue 0 new with `due` a position;
1 learning, `due` seconds from now; 2 review and 3 interday learning, `due` days from today;
-1 suspended; -2 buried). OUT gets, per case, the decks and cards as stored and the queue Anki
builds (card ids in order and the counts), read with get_queued_cards.
"""
import json
import os
import sys
import time

from anki.collection import Collection


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    out = []
    for index, case in enumerate(cases):
        col = Collection(os.path.join(sys.argv[3], "queue%d.anki2" % index))
        col.db.execute("pragma synchronous = off")
        col.set_config("fsrs", True)
        col.set_config("loadBalancerEnabled", False)
        conf_ids = []
        for p_index, p in enumerate(case["presets"]):
            conf_id = col.decks.add_config_returning_id("p%d" % p_index)
            conf = col.decks.get_config(conf_id)
            conf["new"]["perDay"] = p["new_per_day"]
            conf["rev"]["perDay"] = p["reviews_per_day"]
            conf["new"]["bury"] = p["bury_new"]
            conf["rev"]["bury"] = p["bury_reviews"]
            conf["buryInterdayLearning"] = p["bury_interday"]
            conf["newSortOrder"] = p["new_sort"]
            conf["newMix"] = p["new_mix"]
            conf["interdayLearningMix"] = p["interday_mix"]
            col.decks.update_config(conf)
            conf_ids.append(conf_id)
        deck_ids = []
        for name, preset in case["decks"]:
            did = col.decks.id(name)
            deck = col.decks.get(did)
            deck["conf"] = conf_ids[preset]
            col.decks.save(deck)
            deck_ids.append(did)
        model = col.models.by_name("Basic (and reversed card)")
        now = int(time.time())
        today = col.sched.today
        for n, (deck_index, states) in enumerate(case["notes"]):
            note = col.new_note(model)
            note["Front"] = "f%d" % n
            note["Back"] = "b%d" % n
            col.add_note(note, deck_ids[deck_index])
            for card, (queue, offset, reps) in zip(sorted(note.cards(), key=lambda c: c.ord), states):
                if queue == 0:
                    ctype, due = 0, offset
                elif queue == 1:
                    ctype, due = 1, now + offset
                elif queue == 3:
                    ctype, due = 1, today + offset
                elif queue == 2:
                    ctype, due = 2, today + offset
                else:
                    ctype, due = 2, today
                col.db.execute("update cards set type = ?, queue = ?, due = ?, ivl = ?, reps = ?, left = ? where id = ?",
                               ctype, queue, due, 5 if ctype == 2 else 0, reps, 1 if ctype == 1 else 0, card.id)
        col.decks.select(deck_ids[0])
        queued = col.sched.get_queued_cards(fetch_limit=100000)
        cards = col.db.all("select c.id, c.nid, c.did, c.queue, c.due, c.reps, c.ord from cards c order by c.id")
        decks = []
        for did in deck_ids:
            deck = col.decks.get(did)
            decks.append({"id": did, "name": deck["name"], "parent": col.decks.parents(did)[-1]["id"] if col.decks.parents(did) else None})
        out.append({"now": now, "crt": col.crt, "today": today, "next_day_at": col.sched.day_cutoff,
                    "decks": decks, "cards": cards,
                    "queue": [q.card.id for q in queued.cards],
                    "counts": [queued.new_count, queued.learning_count, queued.review_count]})
        col.close()
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


main()
