#!/bin/sh
# Builds the libFuzzer targets in Fuzz/ (swiftc -sanitize=fuzzer,address over library modules
# built with the same instrumentation) and runs each for FUZZ_SECONDS, seeded from Fixtures/.
# Usage: Fuzz/run.sh [seconds] [target...]   (make fuzz FUZZ_SECONDS=60)
# A crash leaves its input in .build/fuzz/artifacts/<target>/; add it to Fixtures/ and fix.
set -eu
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-"FilterParser CSVReader Manifest ArchiveReader AnkiPackage"}
BUILD=.build/fuzz
SWIFT=${SWIFT:-swift}
FLAGS="-sanitize=fuzzer,address"

max_len_of() { # inputs past these sizes add time, not coverage
    case $1 in
        FilterParser|Manifest) echo 4096 ;;
        CSVReader) echo 16384 ;;
        *) echo 131072 ;;
    esac
}

modules_of() { # the module and every Swift module it depends on, from the package description
    swift package describe --type json 2>/dev/null | python3 -c '
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
print(" ".join(n for n in order if targets[n].get("module_type") == "SwiftTarget"))
' "$(module_of "$1")"
}

module_of() {
    case $1 in
        FilterParser) echo DeckFilter ;;
        CSVReader) echo Interchange ;;
        Manifest) echo DeckDocument ;;
        ArchiveReader) echo Archive ;;
        AnkiPackage) echo Anki ;;
    esac
}

seed() { # target directory: a seed corpus from the fixtures
    mkdir -p "$2"
    case $1 in
        FilterParser)
            printf 'front contains "chat" and (tag = "verbs" or created > 2026-01-01) and not kind = cloze' > "$2/example"
            cp Fixtures/malformed/filter/*.txt "$2/" ;;
        CSVReader) cp Fixtures/csv/* Fixtures/malformed/csv/* "$2/" ;;
        Manifest) cp Fixtures/malformed/manifest/*.json "$2/"; find Fixtures/decks -name manifest.json -exec cp {} "$2/v0.json" \; ;;
        ArchiveReader) cp Fixtures/archives/hostile/* Fixtures/malformed/archive/* "$2/" ;;
        AnkiPackage) cp Fixtures/anki/*.apkg Fixtures/anki/*.colpkg Fixtures/malformed/apkg/* "$2/" ;;
    esac
}

for target in $TARGETS; do
    module=$(module_of "$target")
    echo "== $target (module $module): build"
    $SWIFT build --target "$module" --build-path "$BUILD/spm" -Xswiftc -sanitize=fuzzer,address >/dev/null
    objects=""
    for m in $(modules_of "$target"); do objects="$objects $(find -H "$BUILD/spm/debug/$m.build" -name '*.o')"; done
    swiftc $FLAGS -parse-as-library -g \
        -I "$BUILD/spm/debug/Modules" -I Sources/CSQLite -I Sources/CArchive -I Sources/CZstd -I Sources/CMD \
        "Fuzz/${target}Fuzz.swift" $objects -lsqlite3 -larchive -lzstd -lmd -o "$BUILD/$target" 2> "$BUILD/$target.link.log" \
        || { cat "$BUILD/$target.link.log"; exit 1; }
    corpus="$BUILD/corpus/$target"
    seed "$target" "$corpus"
    mkdir -p "$BUILD/artifacts/$target"
    echo "== $target: fuzzing for $SECONDS_EACH s"
    "$BUILD/$target" "$corpus" -max_total_time="$SECONDS_EACH" -max_len="$(max_len_of "$target")" -rss_limit_mb=1024 -timeout=20 \
        -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$target/" 2> "$BUILD/$target.log" \
        || { echo "== $target: FAILED (see $BUILD/$target.log)"; tail -40 "$BUILD/$target.log"; exit 1; }
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD/$target.log" | grep -o '[0-9]*$' || true)
    echo "== $target: ok, $runs executions in $SECONDS_EACH s"
done
