"""What the peer scripts that import packages into current Anki share: a fresh collection per
job with its packages imported in order, and the loop over a JOBS.json file (one process for
every job: Anki is slow to start).

A job is {"name": str, "kind": "apkg" | "colpkg", "packages": [path, ...]}: an .apkg is
imported with scheduling and presets under Anki's default update rule (notes newer than the
collection's are updated); a .colpkg replaces the collection.
"""

import json
import os
import shutil
import sys
import tempfile

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest


def import_job(job, work, before_import=None):
    """Returns the job's collection, open, and the import log of each .apkg. `before_import`,
    when given, sees the fresh collection before an .apkg job's first import."""
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
        return Collection(path), logs
    col = Collection(path)
    if before_import:
        before_import(col)
    for package in job["packages"]:
        request = ImportAnkiPackageRequest(
            package_path=os.path.abspath(package),
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True))
        log = col.import_anki_package(request).log
        logs.append({"new": len(log.new), "updated": len(log.updated), "duplicate": len(log.duplicate),
                     "conflicting": len(log.conflicting)})
    return col, logs


def run_jobs(run_job, prefix):
    """Reads the jobs of sys.argv[1], runs each in its own folder and writes
    {name: run_job(job, work)} to sys.argv[2]."""
    with open(sys.argv[1]) as handle:
        jobs = json.load(handle)["jobs"]
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        out = {job["name"]: run_job(job, work) for job in jobs}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(sys.argv[2], "w") as handle:
        json.dump(out, handle, ensure_ascii=False, sort_keys=True)
