# Gnosis: build, test, benchmark and package the native host and the extension.
GO      ?= go
BIN     := bin
HOST    := $(BIN)/gnosis-host
# The one version of a release (the VERSION file): stamped into gnosis-host here and, by make dist,
# into every package, the extension's manifests and every file name.
VERSION := $(shell cat VERSION)
LDFLAGS := -s -w -X main.version=$(VERSION)
# Every Go build and test leaves the checkout's path out of its inputs (-trimpath, as the release's
# builds do), so a clone in another folder reuses the build cache instead of compiling every package
# and test binary again (a fresh clone's make test: about 50 CPU-seconds).
export GOFLAGS := -trimpath $(GOFLAGS)

.PHONY: all build install setup test test-short test-go test-unit test-lint lint-go lint-js test-e2e test-firefox run-go run-lint run-unit run-e2e run-e2e-game run-firefox bench dist fuzz clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(HOST) ./cmd/gnosis-host

# One line for a newcomer: build, copy to the per-user place, and register with every supported
# browser (Chrome and its channels, Chromium, Edge and its channels, Brave, Vivaldi), installed or
# not yet, so a browser installed later finds the host too. When ~/.local/bin is on PATH it links
# gnosis-host there, so `gnosis-host` works from any terminal; otherwise it prints the full path to run.
# Extra flags: make install ARGS='--munim PATH'.
install: build
	./$(HOST) install --browsers all $(ARGS)

# The tests need Debian's chromium and firefox-esr, wine64, mingw, osslsigncode and the npm packages: setup installs
# whatever is missing (tests/setup.sh), so `make test` works on a fresh machine.
setup:
	./tests/setup.sh

# make test runs every suite, even after one fails, each with its full output in
# build/test-logs/<suite>.log and one summary line (tests/run-suite.sh); a failed suite shows the end
# of its log. The end-to-end suite, the longest, runs beside the others (the host is built once,
# first): the Go tests, then lint, unit and firefox; its click-game file (E2E_GAME) is a third lane.
# Together they need about 2,050 CPU-seconds (fresh clone) on the 2-core machine, so both cores stay busy to the end
# (docs/benchmarks.md#make-test). The firefox suite runs when this Makefile has a test-firefox target.
TEST_SUITES := go lint unit $(shell grep -q '^test-firefox:' $(firstword $(MAKEFILE_LIST)) && echo firefox)

test: setup build
	@rm -rf build/test-logs; mkdir -p build/test-logs
	@status=0; \
	./tests/run-suite.sh e2e $(MAKE) --no-print-directory run-e2e > build/test-logs/e2e.out 2>&1 & e2e=$$!; \
	./tests/run-suite.sh e2e-game $(MAKE) --no-print-directory run-e2e-game > build/test-logs/e2e-game.out 2>&1 & game=$$!; \
	for s in $(TEST_SUITES); do \
		./tests/run-suite.sh $$s $(MAKE) --no-print-directory run-$$s || status=1; \
	done; \
	wait $$e2e || status=1; cat build/test-logs/e2e.out; \
	wait $$game || status=1; cat build/test-logs/e2e-game.out; \
	echo; echo "make test (full logs in build/test-logs/):"; cat build/test-logs/summary.txt; exit $$status

# The fast inner loop: the Go tests with -short (no Wine tests and no slow load test; the integration
# tests side by side, as they mostly wait on their processes: internal/testshort) beside the
# extension's unit tests, whose log is shown when one fails. make test still runs everything. On a
# fresh clone it first installs the npm packages the unit tests import (tests/npm-deps.sh: npm ci from
# the lock file, skipped when node_modules came from it).
test-short:
	@./tests/npm-deps.sh
	@mkdir -p build; status=0; \
	node --test --test-reporter=tap extension/test/ > build/test-short-unit.log 2>&1 & unit=$$!; \
	$(GO) test -short -parallel 4 ./... || status=1; \
	if wait $$unit; then echo "ok  	extension unit tests: $$(grep -m1 '^# pass' build/test-short-unit.log)"; \
	else cat build/test-short-unit.log; echo "FAIL	extension unit tests (above)"; status=1; fi; \
	exit $$status

# Each suite alone (test-X builds what it needs; run-X is the suite itself, for make test).
run-go: test-go
run-lint: test-lint
run-unit: test-unit

# Four integration tests of a package at a time (testshort.Parallel): they mostly wait on processes.
# 20 minutes a package, not go test's 10: on a fresh machine the release tests compile the host for
# Windows and nfpm with an empty build cache, beside the end-to-end suite (over 10 minutes measured).
test-go:
	$(GO) test -count=1 -timeout 20m -parallel 4 -v ./...

test-lint: lint-go lint-js

# go vet and staticcheck (a tool dependency pinned in go.mod) over every package.
lint-go:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

test-unit:
	node --test extension/test/

# eslint (eslint.config.js) over the extension and the end-to-end tests.
lint-js:
	npx eslint extension tests/e2e tests/firefox tools eslint.config.js

# Needs Chromium: without it the suite fails under CI and is skipped elsewhere (tests/prereq.sh).
# Every file has its own profile, host, config and ports, so files share nothing and may run side by
# side: two at a time by default. One file alone keeps about one core busy (Chromium's own processes
# included), so on a 2-core machine more at once only adds contention: four at a time took longer
# beside the Go tests and failed on waits (docs/benchmarks.md#make-test). E2E_CONCURRENCY=N sets it.
# The browser suites' fake Munim, built once for all their test files (lib/harness.js fakeMunim()).
E2E_CONCURRENCY ?= 2
# A recipe's first step for the Chromium suites: stop (skipped, exit 0) or fail as tests/prereq.sh says.
NEEDS_CHROMIUM = ./tests/prereq.sh chromium "$${GNOSIS_CHROMIUM:-/usr/bin/chromium}" "run tests/setup.sh, or make setup"; \
	s=$$?; if [ $$s -eq 3 ]; then exit 0; elif [ $$s -ne 0 ]; then exit $$s; fi
FAKEMUNIM = $(GO) build -o build/fakemunim-$@ ./tests/fakemunim && GNOSIS_FAKEMUNIM=$(CURDIR)/build/fakemunim-$@

# The click games' long file (50 approval windows, each mostly waiting for its answer or its timeout,
# about a fifth of a core) runs as a lane of its own beside the other files (make test, test-e2e).
E2E_GAME := tests/e2e/approval_dot_game.test.js

test-e2e: build
	@$(MAKE) --no-print-directory run-e2e & e2e=$$!; $(MAKE) --no-print-directory run-e2e-game || s=1; wait $$e2e && exit $${s:-0}

run-e2e:
	@$(NEEDS_CHROMIUM); \
	$(FAKEMUNIM) node --test --test-concurrency=$(E2E_CONCURRENCY) $(filter-out $(E2E_GAME),$(wildcard tests/e2e/*.test.js))

run-e2e-game:
	@$(NEEDS_CHROMIUM); \
	$(FAKEMUNIM) node --test --test-concurrency=1 $(E2E_GAME)

# The chat bridge in headless Firefox ESR over WebDriver BiDi, through the real host (docs/firefox.md).
# Needs firefox-esr, with the same prerequisite policy as Chromium.
test-firefox: build
	@$(MAKE) --no-print-directory run-firefox

run-firefox:
	@./tests/prereq.sh firefox-esr "$${GNOSIS_FIREFOX:-/usr/bin/firefox-esr}" "run tests/setup.sh, or make setup"; \
	s=$$?; if [ $$s -eq 3 ]; then exit 0; elif [ $$s -ne 0 ]; then exit $$s; fi; \
	$(FAKEMUNIM) node --test --test-concurrency=1 tests/firefox/

# The host's benchmark (tests/bench), then the chat bridge's in Chromium (tests/e2e/bench: reaction time, soak, a screenshot attached),
# then the agent's desktop step (tests/e2e/bench/desktop_bench.mjs: beside the tab's, on Xvfb).
bench: build
	@s=0; $(GO) run ./tests/bench || s=1; \
	./tests/prereq.sh chromium "$${GNOSIS_CHROMIUM:-/usr/bin/chromium}" "run tests/setup.sh"; p=$$?; \
	if [ $$p -eq 0 ]; then node tests/e2e/bench/bridge_bench.mjs || s=1; node tests/e2e/bench/desktop_bench.mjs || s=1; elif [ $$p -ne 3 ]; then s=1; fi; exit $$s

# Every fuzz target, FUZZTIME each (the seed corpora also run in make test).
FUZZTIME ?= 30s
FUZZ_TARGETS := host/framing:FuzzReadFrame host/session:FuzzDecodeRequest host/chunk:FuzzSplit \
	host/nmclient:FuzzFrames host/workspace:FuzzNames host/relay:FuzzPolicy runtime/rawjson:FuzzObject \
	runtime/mcpprovider:FuzzScanEnvelope runtime/schema:FuzzCompileAndValidate runtime/schema:FuzzDifferential runtime:FuzzGlobMatch runtime:FuzzNormalizeOrigin runtime:FuzzRedact \
	host/session:FuzzIDScanner host/redact:FuzzSetMasksAPlantedValue host/redact:FuzzLinesKeepJSON

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t#*:} in ./$${t%%:*}"; \
		$(GO) test ./$${t%%:*} -run='^$$' -fuzz="^$${t#*:}$$" -fuzztime=$(FUZZTIME); \
	done

# Release (docs/install.md): dist/ holds, for version V of the VERSION file, per platform the host
# with its installer (gnosis-V-windows-amd64.msi, gnosis-V-linux-<arch>.deb and .rpm, and
# gnosis-V-<os>-<arch>.zip everywhere), the extension for the Chrome Web Store
# (gnosis-V-chrome.zip) and for Firefox (gnosis-V-firefox.xpi), and SHA256SUMS, each package with
# LICENSE and its generated THIRD_PARTY_NOTICES.txt. Needs wixl and msitools (the MSI: checked
# first; without them the rest is built and kept, and the MSI named as skipped) and builds nfpm (the
# .deb and .rpm) from the module proxy once; tests/setup.sh installs the rest. DOWNLOAD_URL=https://mirror/.../ (a fork or a mirror; {version} is replaced)
# is where the extension's options page fetches the host from. Windows binaries are signed with
# osslsigncode when a certificate is given: make dist SIGN_CERT=cert.pem SIGN_KEY=key.pem (or
# SIGN_PFX=cert.pfx SIGN_PASS=...).
dist:
	rm -rf dist
	SIGN_CERT='$(SIGN_CERT)' SIGN_KEY='$(SIGN_KEY)' SIGN_PFX='$(SIGN_PFX)' SIGN_PASS='$(SIGN_PASS)' \
	SIGN_TIMESTAMP='$(SIGN_TIMESTAMP)' $(GO) run ./install/release -out dist $(if $(DOWNLOAD_URL),-download-url '$(DOWNLOAD_URL)')

clean:
	rm -rf $(BIN) dist build
