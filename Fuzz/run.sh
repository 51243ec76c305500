#!/bin/sh
# Builds the libFuzzer targets in Fuzz/ and runs each for FUZZ_SECONDS, seeded from Fixtures/.
# Usage: Fuzz/run.sh [seconds] [target...]   (make fuzz FUZZ_SECONDS=60)
#
# Only the library modules a target needs are built, in their own build path
# (.build/fuzz/spm), with coverage instrumentation (-sanitize=fuzzer; FUZZ_SANITIZE=fuzzer,address
# adds AddressSanitizer, slower to build and run); the target's file is then compiled and
# linked with libFuzzer against those objects. Targets run smallest first, so the first
# fuzzes while nothing else is built; the library build is shared (Interchange's build holds
# every module the others need), so the later builds only add modules.
# A crash leaves its input in .build/fuzz/artifacts/<target>/; add it to Fixtures/ and fix.
# Every target runs even when one fails; the script fails if any did.
set -eu
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-"FilterParser ArchiveReader AnkiProtobuf AnkiPackage Manifest CSVReader JSONImport"}
BUILD=.build/fuzz
SWIFT=${SWIFT:-swift}
SANITIZE=${FUZZ_SANITIZE:-fuzzer}
mkdir -p "$BUILD"

max_len_of() { # inputs past these sizes add time, not coverage
    case $1 in
        FilterParser|Manifest|AnkiProtobuf) echo 4096 ;;
        CSVReader|JSONImport) echo 16384 ;;
        *) echo 131072 ;;
    esac
}

module_of() {
    case $1 in
        FilterParser) echo DeckFilter ;;
        CSVReader|JSONImport) echo Interchange ;;
        Manifest) echo DeckDocument ;;
        ArchiveReader) echo Archive ;;
        AnkiPackage|AnkiProtobuf) echo Anki ;;
        *) echo "Fuzz/run.sh: unknown target $1" >&2; exit 64 ;;
    esac
}

modules_of() { # the module and every Swift module it depends on, from the package description
    $SWIFT package describe --type json 2>/dev/null | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
order = []
def visit(name):
    if name in order or name not in targets:
        return
    order.append(name)
    for dependency in targets[name].get("target_dependencies", []):
        visit(dependency)
visit(sys.argv[1])
# Macro plugins run in the compiler: nothing of theirs is linked into a fuzz target.
print(" ".join(n for n in order if targets[n].get("module_type") == "SwiftTarget" and targets[n].get("type") != "macro"))
' "$1"
}

seed() { # target directory: a seed corpus from the fixtures
    mkdir -p "$2"
    case $1 in
        FilterParser)
            printf 'front contains "chat" and (tag = "verbs" or created > 2026-01-01) and not kind = cloze' > "$2/example"
            cp Fixtures/malformed/filter/*.txt "$2/" ;;
        CSVReader) cp Fixtures/csv/* Fixtures/malformed/csv/* "$2/" 2>/dev/null || true ;;
        Manifest) cp Fixtures/malformed/manifest/*.json "$2/"; find Fixtures/decks -name manifest.json -exec cp {} "$2/v0.json" \; ;;
        ArchiveReader) cp Fixtures/archives/hostile/* Fixtures/malformed/archive/* "$2/" 2>/dev/null || true ;;
        AnkiPackage) cp Fixtures/anki/*.apkg Fixtures/anki/*.colpkg Fixtures/malformed/apkg/* "$2/" ;;
        AnkiProtobuf)
            # The protobuf blobs of the current-format fixture: its meta (reader 0), and each
            # config column, prefixed with the byte that picks its reader.
            work=$BUILD/seed-anki
            rm -rf "$work" && mkdir -p "$work"
            unzip -q -o Fixtures/anki/anki-current.apkg -d "$work" 2>/dev/null || true
            if [ -f "$work/meta" ]; then { printf '\000'; cat "$work/meta"; } > "$2/meta"; fi
            if [ -f "$work/media" ] && zstd -q -d -c "$work/media" > "$work/media.pb" 2>/dev/null; then
                { printf '\001'; cat "$work/media.pb"; } > "$2/media"
            fi
            if [ -f "$work/collection.anki21b" ] && zstd -q -d -c "$work/collection.anki21b" > "$work/collection.sqlite" 2>/dev/null; then
                python3 - "$work/collection.sqlite" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
queries = [(5, "SELECT config FROM notetypes"), (6, "SELECT config FROM fields"), (7, "SELECT config FROM templates"),
           (9, "SELECT config FROM deck_config"), (4, "SELECT kind FROM decks")]
for selector, query in queries:
    try:
        rows = db.execute(query).fetchall()
    except sqlite3.Error:
        continue
    for number, (blob,) in enumerate(rows[:4]):
        with open(f"{sys.argv[2]}/{selector}-{number}", "wb") as out:
            out.write(bytes([selector]) + bytes(blob or b""))
PY
            fi
            printf '\002\n\004text' > "$2/handmade" ;;
        JSONImport)
            # Exports of the fixture decks by the debug build, when there is one, and a small one by hand.
            printf '{"format": "sampledeck", "formatVersion": 1, "title": "T", "cards": [{"kind": "basic", "front": "a", "back": "b", "tags": ["x"], "created": "2026-01-01T00:00:00Z", "modified": "2026-01-01T00:00:00Z", "reviews": []}]}' > "$2/handmade-v1.json"
            if [ -x .build/debug/deck ]; then
                work=$BUILD/seed-json
                rm -rf "$work" && mkdir -p "$work"
                cp -R Fixtures/decks/v1/Languages.sampledeck "$work/"
                .build/debug/deck migrate "$work/Languages.sampledeck" >/dev/null 2>&1 || true
                .build/debug/deck export "$work/Languages.sampledeck" -o "$2/languages.json" --format json >/dev/null 2>&1 || true
            fi ;;
    esac
}

failed=""
for target in $TARGETS; do
    module=$(module_of "$target")
    echo "== $target (module $module): build"
    started=$(date +%s)
    # The sanitizer goes to the library targets only (Package.swift), not to the macro plugin.
    if ! SAMPLEDECK_SANITIZE="$SANITIZE" $SWIFT build --target "$module" --build-path "$BUILD/spm" > "$BUILD/$target.build.log" 2>&1; then
        tail -30 "$BUILD/$target.build.log"; failed="$failed $target"; continue
    fi
    objects=""
    # The objects of the module's current sources only (a source removed since an earlier
    # build leaves its object behind, built perhaps with other sanitizers).
    for m in $(modules_of "$module"); do
        while read -r source; do
            object="$BUILD/spm/debug/$m.build/$(basename "$source").o"
            [ -f "$object" ] && objects="$objects $object"
        done < "$BUILD/spm/debug/$m.build/sources"
    done
    if ! swiftc -sanitize="$SANITIZE" -parse-as-library -g \
        -I "$BUILD/spm/debug/Modules" -I Sources/CSQLite -I Sources/CArchive -I Sources/CZstd -I Sources/CMD -I Sources/CZlib \
        "Fuzz/${target}Fuzz.swift" $objects -lsqlite3 -larchive -lzstd -lmd -lz -o "$BUILD/$target" > "$BUILD/$target.link.log" 2>&1; then
        cat "$BUILD/$target.link.log"; failed="$failed $target"; continue
    fi
    echo "== $target: built in $(( $(date +%s) - started )) s"
    corpus="$BUILD/corpus/$target"
    seed "$target" "$corpus"
    mkdir -p "$BUILD/artifacts/$target"
    echo "== $target: fuzzing for $SECONDS_EACH s ($(ls "$corpus" | wc -l) seeds)"
    # SWIFT_BACKTRACE off: Swift's backtracer would take a trap's signal before libFuzzer
    # could save the input that caused it.
    if ! SWIFT_BACKTRACE=enable=no "$BUILD/$target" "$corpus" -max_total_time="$SECONDS_EACH" -max_len="$(max_len_of "$target")" -rss_limit_mb=2048 -timeout=20 \
        -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$target/" > "$BUILD/$target.log" 2>&1; then
        echo "== $target: FAILED (see $BUILD/$target.log)"; tail -40 "$BUILD/$target.log"; failed="$failed $target"; continue
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD/$target.log" | grep -o '[0-9]*$' || true)
    cover=$(grep -o 'cov: [0-9]*' "$BUILD/$target.log" | tail -1 || true)
    echo "== $target: ok, $runs executions in $SECONDS_EACH s ($cover)"
done
if [ -n "$failed" ]; then echo "== failed:$failed"; exit 1; fi
echo "== all fuzz targets clean"
