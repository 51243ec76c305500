#!/usr/bin/env python3
"""Imports packages into fresh collections with current Anki's own importer and reports what
each collection then holds, in one process (Anki is slow to start).

    python3 import_into_anki.py JOBS.json OUT.json

JOBS.json: {"jobs": [{"name": str, "kind": "apkg" | "colpkg", "packages": [path, ...]}]}.
Each job gets a new collection; its packages are imported in order (.apkg with scheduling and
presets, Anki's default update rule: notes newer than the collection's are updated; a .colpkg
replaces the collection). OUT.json: {name: {"logs": [{new, updated, duplicate, conflicting}],
"state": what build_anki_collection.dump reports}}.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from anki_jobs import import_job, run_jobs  # noqa: E402
from build_anki_collection import dump  # noqa: E402


def run_job(job, work):
    col, logs = import_job(job, work)
    state = dump(col)
    # The keys build_anki_collection adds beside dump's (the Swift side decodes one shape).
    state["filteredDeckID"] = next((d["id"] for d in state["decks"] if d.get("dyn")), 0)
    state["packages"] = {}
    col.close()
    return {"logs": logs, "state": state}


if __name__ == "__main__":
    run_jobs(run_job, "anki-import-")
