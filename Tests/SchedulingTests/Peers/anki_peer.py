"""Answers cards in current Anki (the `anki` package, Anki's own Rust backend) and records every
card state before and after, so the Swift scheduler can be checked transition by transition.

Usage: ANKI_TEST_MODE=1 python3 anki_peer.py IN.json OUT.json SCRATCH_DIR
(ANKI_TEST_MODE turns Anki's fuzz off.) IN is a list of sequences:
{"fsrs": bool, "preset": {...deck options...}, "answers": [[rating 1-4, shift seconds], ...]}.
Before each answer the card is moved back in time by `shift` seconds (its due time or day and its
last review time), which is how time passes here: Anki reads the clock itself.
"""
import json
import os
import sys
import time
from datetime import datetime

from anki.collection import Collection
from anki.scheduler.v3 import CardAnswer

ROW = "select type, queue, due, ivl, factor, reps, lapses, left, data from cards where id = ?"


def row(col, cid):
    t, q, due, ivl, factor, reps, lapses, left, data = col.db.first(ROW, cid)
    return {"type": t, "queue": q, "due": due, "ivl": ivl, "factor": factor, "reps": reps,
            "lapses": lapses, "left": left, "data": json.loads(data) if data else {}}


def anki_now_ms():
    # Anki's test mode moves its clock back two hours between 2 and 4 a.m. local time.
    shift = 7200 if 2 <= datetime.now().hour < 4 else 0
    return int((time.time() - shift) * 1000)


def configure(col, did, preset):
    conf_id = col.decks.add_config_returning_id("p%d" % did)
    conf = col.decks.get_config(conf_id)
    conf["new"]["delays"] = preset["learning_steps"]
    conf["new"]["ints"] = [preset["graduating_interval"], preset["easy_interval"], 0]
    conf["new"]["initialFactor"] = int(round(preset["initial_ease"] * 1000))
    conf["new"]["perDay"] = 9999
    conf["rev"]["perDay"] = 9999
    conf["rev"]["ease4"] = preset["easy_multiplier"]
    conf["rev"]["hardFactor"] = preset["hard_multiplier"]
    conf["rev"]["ivlFct"] = preset["interval_multiplier"]
    conf["rev"]["maxIvl"] = preset["maximum_interval"]
    conf["lapse"]["delays"] = preset["relearning_steps"]
    conf["lapse"]["mult"] = preset["lapse_multiplier"]
    conf["lapse"]["minInt"] = preset["minimum_lapse_interval"]
    conf["lapse"]["leechFails"] = preset["leech_threshold"]
    conf["lapse"]["leechAction"] = preset["leech_action"]
    conf["desiredRetention"] = preset["desired_retention"]
    conf["fsrsParams6"] = preset["parameters"]
    col.decks.update_config(conf)
    deck = col.decks.get(did)
    deck["conf"] = conf_id
    col.decks.save(deck)


def main():
    with open(sys.argv[1]) as f:
        sequences = json.load(f)
    scratch = sys.argv[3]
    cols = {}
    for fsrs in (False, True):
        col = Collection(os.path.join(scratch, "fsrs.anki2" if fsrs else "sm2.anki2"))
        col.db.execute("pragma synchronous = off")  # scratch collections: no fsync per answer
        col.set_config("fsrs", fsrs)
        col.set_config("loadBalancerEnabled", False)
        cols[fsrs] = col
    out = []
    decks = {}
    last_at = [0]
    for index, seq in enumerate(sequences):
        col = cols[seq["fsrs"]]
        key = (seq["fsrs"], json.dumps(seq["preset"], sort_keys=True))
        if key not in decks:  # one deck per distinct preset
            did = col.decks.id("preset%d" % len(decks))
            configure(col, did, seq["preset"])
            decks[key] = did
        did = decks[key]
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"] = "q%d" % index
        note["Back"] = "a"
        col.add_note(note, did)
        cid = note.card_ids()[0]
        steps = []
        for rating, shift in seq["answers"]:
            r = row(col, cid)
            if shift:
                due = r["due"]
                if r["queue"] == 1:
                    due -= shift
                elif r["queue"] in (2, 3):
                    due -= shift // 86400
                data = r["data"]
                if "lrt" in data:
                    data["lrt"] -= shift
                col.db.execute("update cards set due = ?, data = ? where id = ?", due, json.dumps(data), cid)
            before = row(col, cid)
            try:
                states = col._backend.get_scheduling_states(cid)
            except BaseException as error:  # Anki's Rust code panics on some states (pyo3 PanicException)
                steps.append({"anki_error": str(error).splitlines()[0] if str(error) else type(error).__name__,
                              "before": before})
                break
            labels = list(col.sched.describe_next_states(states))
            new_state = [states.again, states.hard, states.good, states.easy][rating - 1]
            at = anki_now_ms()
            while at <= last_at[0]:  # a fresh millisecond, so Anki keeps the revlog id as given
                at = anki_now_ms()
            last_at[0] = at
            answer = CardAnswer(card_id=cid, current_state=states.current, new_state=new_state,
                                rating=rating - 1, answered_at_millis=at, milliseconds_taken=1500)
            col.sched.answer_card(answer)
            after = row(col, cid)
            log = col.db.first("select id, ease, ivl, lastIvl, factor, time, type from revlog where cid = ? order by id desc limit 1", cid)
            leech = col.sched.state_is_leech(new_state)
            steps.append({"before": before, "after": after, "labels": labels, "at": at,
                          "today": col.sched.today, "next_day_at": col.sched.day_cutoff,
                          "revlog": list(log), "leech": leech})
        out.append(steps)
    result = {"crt": cols[True].crt, "crt_sm2": cols[False].crt, "rollover": cols[True].get_config("rollover", 4),
              "utc_offset": time.localtime().tm_gmtoff, "learn_ahead": cols[True].get_config("collapseTime", 1200),
              "sequences": out}
    for col in cols.values():
        col.close()
    with open(sys.argv[2], "w") as f:
        json.dump(result, f)


main()
