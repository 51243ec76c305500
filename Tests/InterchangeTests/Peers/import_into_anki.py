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

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest  # noqa: E402
from build_anki_collection import dump  # noqa: E402


def run_job(job, work):
    folder = tempfile.mkdtemp(prefix="job-", dir=work)
    path = os.path.join(folder, "collection.anki2")
    logs = []
    if job["kind"] == "colpkg":
        col = Collection(path)
        col.close(downgrade=False)
        from anki._backend import RustBackend
        backend = RustBackend()
        media = os.path.join(folder, "collection.media")
        os.makedirs(media, exist_ok=True)
        for package in job["packages"]:
            backend.import_collection_package(col_path=path, backup_path=package, media_folder=media,
                                              media_db=os.path.join(folder, "collection.media.db2"))
        col = Collection(path)
    else:
        col = Collection(path)
        for package in job["packages"]:
            request = ImportAnkiPackageRequest(
                package_path=os.path.abspath(package),
                options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True))
            log = col.import_anki_package(request).log
            logs.append({"new": len(log.new), "updated": len(log.updated), "duplicate": len(log.duplicate),
                         "conflicting": len(log.conflicting)})
    state = dump(col)
    # The keys build_anki_collection adds beside dump's (the Swift side decodes one shape).
    state["filteredDeckID"] = next((d["id"] for d in state["decks"] if d.get("dyn")), 0)
    state["packages"] = {}
    col.close()
    return {"logs": logs, "state": state}


def main():
    with open(sys.argv[1]) as handle:
        jobs = json.load(handle)["jobs"]
    work = tempfile.mkdtemp(prefix="anki-import-")
    try:
        out = {job["name"]: run_job(job, work) for job in jobs}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(sys.argv[2], "w") as handle:
        json.dump(out, handle, ensure_ascii=False, sort_keys=True)


if __name__ == "__main__":
    main()
