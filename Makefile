# AsyncLayer: two commands.  `make run` renders the sample set into ./out/, `make test` runs the tests.
SHELL := /bin/bash

# Debian packages the build, the samples and the tests need.
APT_PACKAGES := pkg-config libcairo2-dev libpixman-1-dev libpango1.0-dev libfreetype-dev libfontconfig-dev libdeflate-dev \
                libturbojpeg0-dev \
                fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji fonts-lohit-deva fonts-tlwg-loma-otf poppler-utils valgrind
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
SWIFT ?= swift
OUT ?= out

.PHONY: run test test-tsan test-slurm build release deps samples lint format bench-c bench-callgrind clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	@mkdir -p $(OUT)
	$(SWIFT) run -c release layerbench samples --out-dir $(OUT)

test: deps
	$(SWIFT) test

# The same suite under Thread Sanitizer (CI runs it after `make test`).
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

# `layerbench batch` as a 4-task Slurm job array on a single-node Slurm started for the test (needs the
# Debian packages slurm-wlm and munge); the merged result must equal a single-process run.
test-slurm: release
	@for p in slurm-wlm munge bc; do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends slurm-wlm munge bc; break; }; done
	scripts/slurm/test-local.sh

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build .build-tsan $(OUT) bench/out

include Makefile.bench
