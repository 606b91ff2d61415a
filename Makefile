# AsyncLayer: two commands.  `make run` renders the sample set into ./out/, `make test` runs the tests.
SHELL := /bin/bash

# Fonts for every script in the README's table, each the smallest Debian package that covers its script
# (DejaVu Sans covers Latin, Greek, Cyrillic, Arabic, Hebrew, Lao, Georgian, Armenian and the common symbols).
FONT_PACKAGES := fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji fonts-tlwg-loma-otf \
                 fonts-lohit-deva fonts-lohit-beng-bengali fonts-lohit-taml fonts-lohit-telu fonts-lohit-gujr \
                 fonts-lohit-guru fonts-lohit-knda fonts-lohit-mlym fonts-lklug-sinhala fonts-khmeros \
                 fonts-sil-padauk fonts-sil-abyssinica
# Debian packages the build, the samples and the tests need.
APT_PACKAGES := pkg-config libcairo2-dev libpixman-1-dev libpango1.0-dev libfreetype-dev libfontconfig-dev libdeflate-dev \
                libturbojpeg0-dev libpng-dev librsvg2-dev libqrencode-dev zbar-tools $(FONT_PACKAGES) poppler-utils qpdf valgrind time python3 linux-perf
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
SWIFT ?= swift
OUT ?= out

# SwiftPM reads pkg-config itself and drops any compiler flag it does not allow, with a warning per build:
# pangocairo's chain (gio-2.0 -> gmodule-no-export-2.0) puts `-pthread` in its Cflags. `pkgconfig-shadow`
# copies the system's .pc files whose Cflags carry it, without it, into $(PC_SHADOW), and every swift
# command here searches that folder first. The result is what SwiftPM builds anyway (it drops the flag),
# without the warning; a package that depends on this one still sees SwiftPM's warning, which is harmless.
PC_SHADOW := $(CURDIR)/.build/pkgconfig-shadow
SWIFT_FLAGS := --pkg-config-path $(PC_SHADOW)

.PHONY: pkgconfig-shadow run test test-tsan test-slurm build release deps samples lint format docs fuzz-build fuzz fuzz-replay bench-c bench-callgrind clean \
        serve test-server

# Installs the Debian packages $(1) that are missing (sudo only when not root).
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call apt_install,$(APT_PACKAGES))
	@$(MAKE) --no-print-directory pkgconfig-shadow

pkgconfig-shadow:
	@mkdir -p $(PC_SHADOW); \
	for dir in $$(pkg-config --variable pc_path pkg-config | tr ':' ' '); do \
	  for pc in $$dir/*.pc; do \
	    [ -f "$$pc" ] && [ ! -e "$(PC_SHADOW)/$${pc##*/}" ] && grep -q '^Cflags:.*-pthread' "$$pc" && \
	      sed '/^Cflags:/s/ *-pthread//g' "$$pc" > "$(PC_SHADOW)/$${pc##*/}"; \
	  done; \
	done; true

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps
	$(SWIFT) build $(SWIFT_FLAGS) -c release

run: release
	@mkdir -p $(OUT)
	$(SWIFT) run $(SWIFT_FLAGS) -c release layerbench samples --out-dir $(OUT)
	$(SWIFT) run $(SWIFT_FLAGS) -c release layerbench samples --scripts --out-dir $(OUT)/scripts

# Each test run has a time limit (scripts/run-with-deadline.sh): a test that hangs fails the run and is
# named, instead of holding CI until its own limit. The runs take 1-3 minutes here (10 under TSan).
TEST_RUN_LIMIT ?= 1200
test: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	scripts/run-with-deadline.sh $(TEST_RUN_LIMIT) $(SWIFT) test $(SWIFT_FLAGS) --skip-build

# The same suite under Thread Sanitizer (CI runs it after `make test`).
test-tsan: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests --sanitize=thread --scratch-path .build-tsan
	scripts/run-with-deadline.sh $$(( 2 * $(TEST_RUN_LIMIT) )) \
	  $(SWIFT) test $(SWIFT_FLAGS) --sanitize=thread --scratch-path .build-tsan --skip-build

# `layerbench batch` as a 4-task Slurm job array on a single-node Slurm started for the test (Debian's
# slurm-wlm and munge, installed when missing); the merged result must equal a single-process run. CI runs it.
SLURM_TEST_PACKAGES := slurm-wlm munge bc python3
test-slurm: release
	$(call apt_install,$(SLURM_TEST_PACKAGES))
	scripts/slurm/test-local.sh

# The tile and report server (Server/, a package of its own with Hummingbird: not part of `make run` or
# `make test`). `make serve` runs it in the foreground on 127.0.0.1:$${PORT:-8080} (SERVE_FLAGS adds
# options, e.g. SERVE_FLAGS=--no-cancel); `make test-server` runs its tests, then the real server on a free
# loopback port under wrk, a client that hangs up mid-draw and SIGTERM (Server/scripts/live-test.sh). CI runs it.
SERVER_TEST_PACKAGES := wrk curl python3
SERVE_FLAGS ?=
serve: deps
	cd Server && $(SWIFT) build $(SWIFT_FLAGS) -c release --product asynclayer-server
	Server/.build/release/asynclayer-server --host 127.0.0.1 --port $${PORT:-8080} $(SERVE_FLAGS)

test-server: deps
	$(call apt_install,$(SERVER_TEST_PACKAGES))
	cd Server && $(SWIFT) build $(SWIFT_FLAGS) --build-tests
	cd Server && ../scripts/run-with-deadline.sh 600 $(SWIFT) test $(SWIFT_FLAGS) --skip-build
	timeout --kill-after=20 600 Server/scripts/live-test.sh Server/.build/debug/asynclayer-server

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources \
	  Server/Package.swift Server/Sources Server/Tests
	@out=$$(scripts/folder-graph.sh --check) || { echo "$$out" | grep -E '\^|against the layers'; exit 1; }

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources \
	  Server/Package.swift Server/Sources Server/Tests

# The DocC catalog (Sources/AsyncLayer/AsyncLayer.docc) and the `///` docs of the public API, built by
# swift-docc-plugin into .build/plugins/Swift-DocC/outputs/AsyncLayer.doccarchive. Any warning (a symbol
# link that does not resolve, a missing article) fails it. CI runs it after `make lint`.
# `make docs DOCS_FLAGS=--experimental-documentation-coverage` also prints how much of the API is documented.
DOCS_FLAGS ?=
docs: deps
	$(SWIFT) package $(SWIFT_FLAGS) generate-documentation --target AsyncLayer --warnings-as-errors $(DOCS_FLAGS)

# libFuzzer targets (Fuzz/, a package of its own): the library and the targets are built with
# `-sanitize=fuzzer,address`. `make fuzz` fuzzes each target for FUZZ_SECONDS (new inputs go to
# Fuzz/.build-fuzz/corpus/<target>/, crashes to Fuzz/crashes/<target>/); `make fuzz-replay` runs
# each target once over its committed corpus and every saved crash, and fails on any crash, leak
# or input slower than 2 s (CI runs it).
FUZZ_TARGETS := fuzz-text fuzz-report fuzz-png fuzz-jpeg
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH := Fuzz/.build-fuzz
FUZZ_BIN := $(FUZZ_SCRATCH)/debug
# The Swift runtime's backtracer (swift-backtrace) can outlive a crashing fuzzer and hang holding
# its output open; libFuzzer and AddressSanitizer print the stack instead.
FUZZ_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/Fuzz/lsan.supp SWIFT_BACKTRACE=enable=no
FUZZ_FLAGS := -timeout=2 -rss_limit_mb=2048
fuzz_max_len = $(if $(filter fuzz-text,$(1)),4096,16384)
fuzz_dict = $(if $(filter fuzz-text,$(1)),-dict=Fuzz/dict/markup.dict,$(if $(filter fuzz-report,$(1)),-dict=Fuzz/dict/report.dict))

fuzz-build: deps
	nice -n 19 $(SWIFT) build $(SWIFT_FLAGS) -c debug --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

fuzz: fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_SCRATCH)/corpus/$$t Fuzz/crashes/$$t; \
	  echo "== $$t: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) nice -n 19 $(FUZZ_BIN)/$$t $(FUZZ_SCRATCH)/corpus/$$t Fuzz/corpus/$$t \
	    -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) -max_len=$(call fuzz_max_len,$$t) $(call fuzz_dict,$$t) \
	    -artifact_prefix=Fuzz/crashes/$$t/ -print_final_stats=1 || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: crash, leak or timeout in:$$failed (inputs in Fuzz/crashes/)"; exit 1; fi

fuzz-replay: fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p Fuzz/crashes/$$t; \
	  echo "== $$t: $$(ls Fuzz/corpus/$$t | wc -l) corpus inputs, $$(ls Fuzz/crashes/$$t | wc -l) saved crashes"; \
	  $(FUZZ_ENV) nice -n 19 $(FUZZ_BIN)/$$t -runs=0 $(FUZZ_FLAGS) -artifact_prefix=$(FUZZ_SCRATCH)/replay-$$t- \
	    Fuzz/corpus/$$t Fuzz/crashes/$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz-replay: failed in:$$failed"; exit 1; fi

clean:
	rm -rf .build .build-tsan $(FUZZ_SCRATCH) $(OUT) bench/out Server/.build

include Makefile.bench
