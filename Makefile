# Yrden: one MCP endpoint in front of many MCP servers.
#   make run    install what is missing, build (release), start the gateway on its embedded default
#   make test   install what is missing, build, run unit tests, the format check and the interop suite
#   make bench  build release and print figures beside a direct connection to the same upstream
#   make dist   a self-contained dist/yrden (Swift runtime linked in) for machines without a Swift toolchain
#   make image  the container image yrden:local from dist/yrden (podman or docker, no registry needed)

SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
VENV_1X := .venv-1x
CONFIG ?=
ARGS ?=
# `make test` installs the interop suite's peers while the Swift build runs, so two installs may meet: apt waits
# for the other's lock instead of failing.
APT_GET := apt-get -o DPkg::Lock::Timeout=600

.PHONY: run test peers unit console-unit interop lint format bench dist image system-deps browser-deps service-deps venv venv-1x build build-release clean

# System packages the build needs; installed only when missing (CI and fresh machines run as root).
system-deps:
	@if ! pkg-config --exists libmicrohttpd 2>/dev/null; then \
		echo "installing libmicrohttpd-dev and pkg-config"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO $(APT_GET) install -y -qq libmicrohttpd-dev pkg-config >/dev/null; \
	fi
	@# unzip unpacks the MCPB bundles of registry entries (servers add --from), run by the gateway.
	@if ! command -v unzip >/dev/null; then \
		echo "installing unzip"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO $(APT_GET) install -y -qq unzip >/dev/null; \
	fi

# The browser the console's tests drive: Debian's Chromium and its driver, nothing downloaded at test time.
browser-deps:
	@if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then \
		echo "installing chromium and chromium-driver"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO $(APT_GET) install -y -qq chromium chromium-driver >/dev/null; \
	fi

# What the team-gateway tests run for real: PostgreSQL (started by the tests in a temp dir), haproxy, and podman
# (with runc and debootstrap, to build the image without a registry), and openssl, which makes the private CA of
# the wss:// tests.
SERVICE_PACKAGES := postgresql haproxy podman runc debootstrap openssl
service-deps:
	@if ! command -v haproxy >/dev/null 2>&1 || ! command -v podman >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1 \
		|| ! command -v openssl >/dev/null 2>&1 \
		|| ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "installing $(SERVICE_PACKAGES)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO $(APT_GET) install -y -qq $(SERVICE_PACKAGES) >/dev/null; \
	fi

build: system-deps
	$(SWIFT) build

build-release: system-deps
	$(SWIFT) build -c release

run: build-release
	.build/release/yrden serve $(if $(CONFIG),--config $(CONFIG)) $(ARGS)

# Python peers for the interop suite (official MCP SDK, mcp-server-time), pinned in one file.
venv: $(VENV)/.installed
$(VENV)/.installed: Tests/interop/requirements.txt
	$(PYTHON) -m venv $(VENV) || { $(APT_GET) install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); }
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/interop/requirements.txt
	# The wheels of mcp-server-time and its dependencies at the pinned versions, for test_registry.py's `uvx`,
	# which then installs from them with no index (offline).
	$(VENV)/bin/pip download -q --disable-pip-version-check -d $(VENV)/wheelhouse -c Tests/interop/requirements.txt mcp-server-time
	touch $@

# The official SDK 1.x, for the tests that drive the gateway with a 1.x host: a venv of its own, since 1.x and
# 2.x share the `mcp` package name.
venv-1x: $(VENV_1X)/.installed
$(VENV_1X)/.installed: Tests/interop/requirements-1x.txt
	$(PYTHON) -m venv $(VENV_1X) || { $(APT_GET) install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV_1X); }
	$(VENV_1X)/bin/pip install -q --disable-pip-version-check -r Tests/interop/requirements-1x.txt
	touch $@

# The format check, and the import rule of ARCHITECTURE.md (a target imports only lower layers, and declares
# exactly what it imports), with the rule's own tests.
lint:
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Plugins Sources Tests
	python3 .ci/test_check_layers.py
	SWIFT='$(SWIFT)' .ci/check-layers

format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Plugins Sources Tests

# A hung test ends the run after 10 minutes with the name of what hung, rather than holding CI for its limit.
# Swift Testing would start all ~1,000 tests at once on a pool of one thread per core: on a loaded machine the
# ~150 that start a gateway then starve each other past their 10 s waits for `connected`. At most 8 run at once
# (under load the suite ran no slower for it: most of a test's time is waiting, not CPU).
UNIT_WIDTH ?= 8
unit: build
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(UNIT_WIDTH) .ci/deadline 600 $(SWIFT) test --skip-build

# The console's pure browser modules (an app's CSP, output-schema checks) under Node's own test runner.
console-unit:
	@command -v node >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO $(APT_GET) install -y -qq nodejs >/dev/null; }
	node --test Tests/console/

# The interop suite in two parts: every test but those marked `alone`, in INTEROP_WORKERS worker processes (0: in
# pytest's own; every test starts its own gateways, on free ports and in its own tmp dir; a whole file goes to one
# worker, so a module's shared gateway starts once), then the `alone` ones (they bound a latency or the loop's lag)
# by themselves. Both parts always run; either failing fails the target.
INTEROP_WORKERS ?= 3
INTEROP := YRDEN_BIN=$(CURDIR)/.build/debug/yrden $(VENV)/bin/python -m pytest Tests/interop -q
interop: build venv venv-1x browser-deps service-deps
	status=0; \
	$(INTEROP) -n $(INTEROP_WORKERS) --dist loadfile -m "not alone" --durations=15 || status=1; \
	$(INTEROP) -m alone || status=1; \
	exit $$status

# What the interop suite runs besides the gateway: the browser, the services, the Python peers.
peers: browser-deps service-deps venv venv-1x

# The peers install in the background while the format check, the build and the unit tests run: they wait on the
# network and on dpkg, the build on the CPU (in CI's fresh clone that takes about 4 minutes off the run). Their
# output is shown only when they fail.
PEERS_LOG := .build/peers.log
test: system-deps
	@mkdir -p $(dir $(PEERS_LOG)); start=$$(date +%s); \
	$(MAKE) --no-print-directory peers > $(PEERS_LOG) 2>&1 & peers=$$!; \
	$(MAKE) --no-print-directory lint unit console-unit; status=$$?; \
	if wait $$peers; then echo "peers installed ($$(( $$(date +%s) - start )) s after the start)"; \
	else echo "installing the interop suite's peers failed:"; cat $(PEERS_LOG); exit 1; fi; \
	[ $$status = 0 ] || exit $$status; \
	$(MAKE) --no-print-directory interop

bench: build-release service-deps
	Benchmarks/run.sh

# The Swift standard library and Foundation are linked in; what stays dynamic is glibc, libstdc++, zlib and
# libmicrohttpd (apt-get install libmicrohttpd12 on the target). Its own build folder, so it never forces a
# rebuild of the release binary that make bench measures.
DIST_BUILD := .build/dist
dist: system-deps
	$(SWIFT) build -c release --static-swift-stdlib --product yrden --scratch-path $(DIST_BUILD)
	mkdir -p dist
	install -m 0755 "$$($(SWIFT) build -c release --scratch-path $(DIST_BUILD) --show-bin-path)/yrden" dist/yrden
	strip dist/yrden
	@echo "dist/yrden: $$(du -h dist/yrden | cut -f1); needs on the target:"; ldd dist/yrden | awk '{print "  " $$1}'

# The image yrden:local with podman (docker when that is what the machine has), no registry needed: deploy/image.sh
# builds deploy/Dockerfile's stage from-binary with dist/yrden, after making the base image (debian:bookworm-slim)
# with debootstrap when it cannot be pulled (once: the engine's store keeps it). With a registry, the Dockerfile's
# default target compiles in the official Swift image instead (deploy/README.md). IMAGE_TAG names the image,
# IMAGE_ARGS adds to the build (e.g. IMAGE_ARGS="--build-arg WITH_PYTHON=1").
IMAGE_TAG ?= yrden:local
IMAGE_ARGS ?=
image: dist service-deps
	deploy/image.sh build --binary dist/yrden --tag $(IMAGE_TAG) $(IMAGE_ARGS)

clean:
	rm -rf .build $(VENV) dist
