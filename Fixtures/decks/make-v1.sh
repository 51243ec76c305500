#!/bin/sh
# Rebuilds Fixtures/decks/v1/Languages.sampledeck: a format version 1 deck made by the `deck`
# tool of that version (run from the repository root after `swift build --product deck`):
#   sh Fixtures/decks/make-v1.sh [path/to/deck]
# It holds every kind (basic, reversible, cloze), tags, cards from a CSV, an Anki package
# (GUIDs, deck paths, two media files, a review card with its history) and a JSON file
# (a due card with reviews and an embedded media file). Ids and dates change on a rebuild.
set -eu
DECK=${1:-.build/debug/deck}
OUT=Fixtures/decks/v1/Languages.sampledeck
rm -rf "$OUT"
mkdir -p Fixtures/decks/v1
"$DECK" create "$OUT" --title "Languages (format 1)" --quiet
"$DECK" add "$OUT" --front chat --back cat --tag animals --tag nouns --quiet
"$DECK" add "$OUT" --front "Café" --back coffee --kind reversible --tag drinks --quiet
"$DECK" add "$OUT" --front "Paris is the capital of {{c1::France}}" --back "" --kind cloze --tag geo --quiet
"$DECK" add "$OUT" --front "l'élève" --back "the pupil" --quiet
"$DECK" import "$OUT" Fixtures/csv/french-verbs.csv --quiet
"$DECK" import "$OUT" Fixtures/anki/anki-current.apkg --quiet
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# A 1x1 GIF, base64, and its SHA-256.
GIF=R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7
printf %s "$GIF" | base64 -d > "$TMP/dot.gif"
SHA=$(sha256sum "$TMP/dot.gif" | cut -d' ' -f1)
SIZE=$(wc -c < "$TMP/dot.gif" | tr -d ' ')
cat > "$TMP/reviewed.json" <<JSON
{
  "format": "sampledeck", "formatVersion": 1, "title": "Reviewed", "description": "",
  "tags": ["reviewed"],
  "media": [{"fileName": "$SHA.gif", "originalName": "dot.gif", "sha256": "$SHA", "mime": "image/gif", "size": $SIZE, "data": "$GIF"}],
  "cards": [{
    "kind": "basic", "front": "le chien <img src=\"dot.gif\">", "back": "the dog",
    "created": "2026-01-02T03:04:05.678Z", "modified": "2026-02-03T04:05:06.789Z",
    "due": "2026-03-01T00:00:00.000Z", "interval": 14, "ease": 2.35, "repetitions": 3, "lapses": 1,
    "tags": ["reviewed"], "media": ["$SHA.gif"],
    "reviews": [
      {"date": "2026-01-02T03:10:00.000Z", "ease": 3, "interval": 1, "duration": 4.5},
      {"date": "2026-01-03T08:00:00.000Z", "ease": 1, "interval": 0, "duration": 12.25},
      {"date": "2026-02-15T09:30:00.500Z", "ease": 4, "interval": 14, "duration": 2}
    ]
  }]
}
JSON
"$DECK" import "$OUT" "$TMP/reviewed.json" --quiet
"$DECK" edit "$OUT" 1 --tag +edited --quiet
"$DECK" check "$OUT"
