"""Runs review sequences through the `fsrs` package (the FSRS reference implementation).

Usage: python3 fsrs_peer.py IN.json OUT.json
IN is a list of sequences: {"parameters": [21 floats], "retention": float, "maximum_interval": int,
"learning_steps": [seconds], "relearning_steps": [seconds], "reviews": [[rating 1-4, unix seconds], ...]}.
OUT gets, per sequence, one [state, step, stability, difficulty, due unix seconds] per review
(step -1 when the card is in review). One process for all sequences.
"""
import json
import sys
from datetime import datetime, timedelta, timezone

from fsrs import Card, Rating, Scheduler


def main():
    with open(sys.argv[1]) as f:
        sequences = json.load(f)
    results = []
    for seq in sequences:
        scheduler = Scheduler(
            parameters=seq["parameters"],
            desired_retention=seq["retention"],
            learning_steps=[timedelta(seconds=s) for s in seq["learning_steps"]],
            relearning_steps=[timedelta(seconds=s) for s in seq["relearning_steps"]],
            maximum_interval=seq["maximum_interval"],
            enable_fuzzing=False,
        )
        card = Card(card_id=1)
        out = []
        for rating, at in seq["reviews"]:
            when = datetime.fromtimestamp(at, tz=timezone.utc)
            card, _ = scheduler.review_card(card, Rating(rating), review_datetime=when)
            out.append([int(card.state), -1 if card.step is None else card.step,
                        card.stability, card.difficulty, card.due.timestamp()])
        results.append(out)
    with open(sys.argv[2], "w") as f:
        json.dump(results, f)


main()
