#!/bin/sh
# Proves that a package depending on SampleDeck *by version* builds against the Persistence
# product (SwiftPM refuses products with unsafe build flags to such dependents): clones this
# repository's committed HEAD into a temporary directory, tags it 1.0.0, and builds and runs a
# throwaway package that depends on it with `from: "1.0.0"`. Run by `make test`.
set -eu
SWIFT=${SWIFT:-swift}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampledeck-version-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

git clone --quiet --no-hardlinks "$root" "$tmp/SampleDeck"
git -C "$tmp/SampleDeck" -c user.name=check -c user.email=check@localhost tag 1.0.0

mkdir -p "$tmp/Consumer/Sources/Consumer"
cat > "$tmp/Consumer/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [.package(url: "file://$tmp/SampleDeck", from: "1.0.0")],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [.product(name: "Persistence", package: "SampleDeck")]),
    ]
)
MANIFEST
cat > "$tmp/Consumer/Sources/Consumer/main.swift" <<'SOURCE'
import Foundation
import Persistence

final class Note: PersistentModel {
    var text: String = ""
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("text", \Note.text)]
    let persistentBackingData = BackingData()
    init() {}
    init(text: String) { self.text = text }
}

let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
context.insert(Note(text: "by version"))
try context.save()
print(try context.fetch(FetchDescriptor<Note>()).map(\.text).joined())
SOURCE

cd "$tmp/Consumer"
"$SWIFT" build --quiet
output=$(.build/debug/Consumer)
if [ "$output" != "by version" ]; then
    echo "check-version-dependency: the consumer printed '$output', expected 'by version'" >&2
    exit 1
fi
echo "check-version-dependency: a package depending on SampleDeck from: \"1.0.0\" builds and runs against Persistence"
