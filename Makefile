# SampleDeck: the two README commands (`make demo`, `make test`) and the rest.
# Every target installs what it needs on a fresh Debian machine (when run as root).

SWIFT       ?= swift
APT_PKGS    := libsqlite3-dev libarchive-dev libzstd-dev libmd-dev zlib1g-dev sqlite3 libarchive-tools unzip zip mandoc time
PY_PKGS     := genanki anki fsrs jsonschema
DEMO_DIR    := demo
DECK        := .build/debug/deck

.PHONY: deps pydeps build test demo bench lint-man clean install install-files

# System packages: installed through apt-get when run as root and missing.
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "make: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "make: missing system packages:$$missing (run as root, or install them)" >&2; exit 1; fi; \
	fi

# Python peers for interop tests (genanki writes legacy .apkg; anki is current Anki's backend;
# fsrs is the FSRS reference implementation the scheduler is checked against).
pydeps:
	@python3 -c 'import genanki, anki, fsrs, jsonschema' 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check $(PY_PKGS)

build: deps
	$(SWIFT) build

# The whole test suite, from scratch.
test: deps pydeps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory lint-man
	SWIFT=$(SWIFT) scripts/check-version-dependency.sh

# The main job on an example deck: create a deck from Fixtures/, list it, search it, check it, archive it.
demo: build
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	$(DECK) create $(DEMO_DIR)/French.sampledeck --title "French verbs"
	$(DECK) import $(DEMO_DIR)/French.sampledeck Fixtures/csv/french-verbs.csv
	$(DECK) list $(DEMO_DIR)/French.sampledeck --sort front --limit 10
	$(DECK) search $(DEMO_DIR)/French.sampledeck etre
	$(DECK) check $(DEMO_DIR)/French.sampledeck
	$(DECK) archive $(DEMO_DIR)/French.sampledeck -o $(DEMO_DIR)/French.sampledeck.zip
	$(DECK) info $(DEMO_DIR)/French.sampledeck.zip

# Release builds link the Swift runtime and Foundation statically, as a Linux command-line tool
# ships: the dynamic loader's symbol lookups were a third of a short command's time
# (deck review: 13 ms of process start become 8). They link with the toolchain's lld and
# pack their ~84,000 relative relocations (DT_RELR, glibc 2.36+): the loader applies them in
# a tight loop instead of reading 2 MB of RELA entries, which was ~1 ms of each start
# (deck review 29.1 -> 27.5 ms CPU, one-note search 21.0 -> 20.1 ms; median of 21, A/B).
RELEASE = $(SWIFT) build -c release --static-swift-stdlib \
	-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

# The benchmark suite, release build (deck and deck-bench); writes docs/PERFORMANCE.md, docs/perf/.
# BENCH_ARGS=--quick for a one-minute smoke run (written under .build/bench-quick).
bench: deps pydeps
	$(RELEASE)
	.build/release/deck-bench $(BENCH_ARGS)

# Installs deck (release build), its man pages and its bash, zsh and fish completions under
# PREFIX (DESTDIR for staging): `man deck` works with MANPATH=$(PREFIX)/share/man.
# install-files installs an already built DECK_BIN (the tests use the debug build).
PREFIX   ?= /usr/local
DECK_BIN ?= .build/release/deck
install: deps
	$(RELEASE) --product deck
	$(MAKE) --no-print-directory install-files DECK_BIN=.build/release/deck

install-files:
	@test -x "$(DECK_BIN)" || { echo "make: no deck binary at $(DECK_BIN)" >&2; exit 1; }
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/share/man/man5" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 "$(DECK_BIN)" "$(DESTDIR)$(PREFIX)/bin/deck"
	install -m 0644 man/*.1 "$(DESTDIR)$(PREFIX)/share/man/man1/"
	install -m 0644 man/*.5 "$(DESTDIR)$(PREFIX)/share/man/man5/"
	"$(DECK_BIN)" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/deck"
	"$(DECK_BIN)" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_deck"
	"$(DECK_BIN)" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/deck.fish"
	@echo "installed deck in $(DESTDIR)$(PREFIX)"

lint-man:
	@if ls man/*.[0-9] >/dev/null 2>&1; then mandoc -T lint -W warning man/*.[0-9] && echo "mandoc: man pages clean"; fi

clean:
	rm -rf .build $(DEMO_DIR)

# MARK: Reliability (docs/RELIABILITY.md): crash injection, concurrency, malformed input,
# resource faults, fuzzing and sanitizers. `make test` runs the short forms.
KILLS        ?= 200
SIGNALS      ?= 300
RACES        ?= 20
FUZZ_SECONDS ?= 60

.PHONY: reliability fuzz asan tsan

# The full reliability suite: RELIABILITY_KILLS SIGKILLs of writing `deck` processes,
# RELIABILITY_SIGNALS SIGINT/SIGTERM/SIGHUP/closed pipes, RELIABILITY_RACES races of two
# writers per command, and the rest.
reliability: deps
	$(SWIFT) build --build-tests
	RELIABILITY_KILLS=$(KILLS) RELIABILITY_SIGNALS=$(SIGNALS) RELIABILITY_RACES=$(RACES) \
		$(SWIFT) test --skip-build --filter ReliabilityTests

# The whole test suite under AddressSanitizer (own build path; the tests run the sanitized
# `deck` too). SANITIZER_TEST_ARGS narrows a run, e.g. --filter ReliabilityTests.
# LeakSanitizer is off by default (Swift runtime caches alive at exit flood stderr); ASAN_OPTIONS overrides.
asan: deps pydeps
	$(SWIFT) build --build-tests --sanitize=address --build-path .build/asan
	ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0} $(SWIFT) test --skip-build --sanitize=address --build-path .build/asan $(SANITIZER_TEST_ARGS)

# The suites that run code on several threads or processes at once, under ThreadSanitizer
# (own build path; the reliability tests run the sanitized `deck`, whose reports fail them):
# two writers and the lock, signals and temporaries, store access from tasks, autosave,
# `deck open`'s signal handling, parallel conversion, progress bars, streaming readers.
# TSAN_FILTER=. runs the whole suite (about 11 minutes on 2 cores); TSAN_OPTIONS as usual.
TSAN_FILTER ?= ConcurrencyTests|AutosaveRaceTests|SignalTests|TemporaryWindowTests|LockTests|OpenSessionTests|OutputTargetTests|ConverterTests|ProgressBarTests|SwiftDataAPITests|ArchiveReaderTests|CSVReaderTests
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build/tsan
	TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=0} $(SWIFT) test --skip-build --sanitize=thread --build-path .build/tsan \
		--filter '$(TSAN_FILTER)' $(SANITIZER_TEST_ARGS)

# libFuzzer targets in Fuzz/ (filter parser, archive reader, Anki protobuf messages, apkg
# reader, manifest reader, CSV reader, JSON import), each run for FUZZ_SECONDS over a seed
# corpus from Fixtures/; only the library modules they need are built (.build/fuzz);
# crashes land in .build/fuzz/artifacts/. FUZZ_TARGETS="Manifest CSVReader" runs some.
FUZZ_TARGETS ?=
fuzz: deps
	sh Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
