#!/usr/bin/env bash
# deploy/image.sh: build the Yrden image from a binary already built, with podman (docker when that is what the
# machine has), without a registry. `make image` runs it with dist/yrden; the interop tests with the debug build.
#
#   deploy/image.sh build [--binary PATH] [--tag NAME] [--build-arg K=V]...   build deploy/Dockerfile's
#                          stage from-binary with PATH (default dist/yrden) as NAME (default yrden:local)
#   deploy/image.sh engine     the engine, and whether it needs the workaround below
#
# Both end by printing on stdout engine=podman (or docker) and, when runs need the workaround below,
# CONTAINERS_CONF=PATH: export it to run the image with podman on this machine.
#
# What it does, in order:
#  1. The base image the runtime stage names (ARG RUNTIME_IMAGE, debian:bookworm-slim): kept if the engine has
#     it, pulled if a registry answers, else made with debootstrap (minbase, trimmed like Debian's slim images:
#     no docs, man pages or locales, apt lists emptied), imported and tagged with that name. The engine's store
#     keeps it, so the next run finds it and debootstraps nothing.
#  2. Whether containers run here. Some sandboxes deny podman's setrlimit (no CAP_SYS_RESOURCE): then a
#     containers.conf of its own (CONTAINERS_CONF, written under .build/, never the machine's) puts
#     deploy/sandbox/runc in front of runc. Nothing changes on a machine where `podman run` just works.
#  3. A small build context: the deploy files the Dockerfile copies and image-root/, laid out like the image's
#     root: the binary (stripped) at usr/local/bin/yrden, plus every library `ldd` finds outside the system's
#     library directories (the Swift runtime of a debug build) at the path the binary loads it from.
#  4. The build of --target from-binary with --pull=never, then `yrden check-config` in the new image: a binary
#     that cannot run there (a missing library, a newer glibc) fails here, not at the user's first start.
#
# Environment: CONTAINER_ENGINE (podman or docker), DEBIAN_MIRROR (default: the mirror apt uses here, else
# deb.debian.org), DEBIAN_SECURITY_MIRROR. Exit status: 0 built; 1 failed; 3 no container engine here.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dockerfile=$repo/deploy/Dockerfile
state=$repo/.build/containers

say() { echo "image.sh: $*" >&2; }
# Temporary directories, removed however the script ends.
scratch=()
trap 'rm -rf "${scratch[@]}"' EXIT
die() { say "$*"; exit 1; }

# ---------------------------------------------------------------------------------------------------------
# The engine

engine=
pick_engine() {
    if [ -n "${CONTAINER_ENGINE:-}" ]; then
        engine=$CONTAINER_ENGINE
    elif command -v podman >/dev/null 2>&1; then
        engine=podman
    elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
        engine=docker
    else
        say "no container engine: neither podman nor a docker with a running daemon (make service-deps installs podman)"
        exit 3
    fi
}

# Runs a throwaway container of IMAGE. Under the sandbox's limits podman fails here with "setrlimit".
can_run() {
    "$engine" run --rm --pull=never --network=none --entrypoint /bin/true "$1" >/dev/null 2>"$state/probe.err"
}

# Sets CONTAINERS_CONF to the workaround when a plain run fails for want of setrlimit (podman only).
fit_runtime() {
    local image=$1
    mkdir -p "$state"
    if can_run "$image"; then return 0; fi
    if [ "$engine" = podman ] && [ -z "${CONTAINERS_CONF:-}" ] && grep -qi rlimit "$state/probe.err"; then
        cat >"$state/containers.conf" <<EOF
# Written by deploy/image.sh: this machine's podman may not set rlimits, so runc runs behind a wrapper that
# drops them (deploy/sandbox/runc). Used through CONTAINERS_CONF only; the machine's own config is untouched.
[engine]
runtime = "runc"
[engine.runtimes]
runc = ["$repo/deploy/sandbox/runc"]
EOF
        export CONTAINERS_CONF=$state/containers.conf
        say "podman cannot set rlimits here; using CONTAINERS_CONF=$CONTAINERS_CONF (deploy/sandbox/runc)"
        if can_run "$image"; then return 0; fi
    fi
    die "containers do not run with $engine here: $(tail -n 3 "$state/probe.err")"
}

# ---------------------------------------------------------------------------------------------------------
# The base image

base_image() {
    sed -n 's/^ARG RUNTIME_IMAGE=//p' "$dockerfile" | head -n 1
}

has_image() {
    if [ "$engine" = podman ]; then podman image exists "$1"; else docker image inspect "$1" >/dev/null 2>&1; fi
}

# The first Debian mirror this machine's apt uses whose URL contains (or not) "security".
apt_mirror() {
    local want=$1
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | sed -n -e 's/^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}:[^ ]*\).*/\2/p' -e 's/^URIs: *\(https\{0,1\}:[^ ]*\).*/\1/p' \
        | while read -r url; do
            case "$url" in *security*) [ "$want" = security ] && echo "$url" ;; *) [ "$want" = main ] && echo "$url" ;; esac
        done | head -n 1
}

# debian:SUITE-slim (or debian:SUITE) from Debian packages, tagged with the name the Dockerfile uses.
debootstrap_base() {
    local name=$1 suite
    case "$name" in
        debian:*-slim) suite=${name#debian:}; suite=${suite%-slim} ;;
        debian:*) suite=${name#debian:} ;;
        *) die "$name cannot be pulled, and only debian:SUITE images can be made here (with debootstrap)" ;;
    esac
    command -v debootstrap >/dev/null 2>&1 || die "$name cannot be pulled and debootstrap is missing (make service-deps)"
    [ "$(id -u)" = 0 ] || die "$name cannot be pulled; making it with debootstrap needs root (sudo make image)"
    local mirror=${DEBIAN_MIRROR:-$(apt_mirror main)} security=${DEBIAN_SECURITY_MIRROR:-$(apt_mirror security)}
    mirror=${mirror:-http://deb.debian.org/debian}
    security=${security:-http://deb.debian.org/debian-security}
    local root
    root=$(mktemp -d "${TMPDIR:-/tmp}/yrden-base.XXXXXX")
    scratch+=("$root")
    say "$name cannot be pulled: making it with debootstrap ($suite, $mirror), about a minute"
    debootstrap --variant=minbase "$suite" "$root/rootfs" "$mirror" >"$state/debootstrap.log" 2>&1 \
        || die "debootstrap failed; the end of $state/debootstrap.log: $(tail -n 5 "$state/debootstrap.log")"
    local r=$root/rootfs
    # What Debian's slim images leave out, now and in every later apt-get install.
    cat >"$r/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    cat >"$r/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$r/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$r/etc/apt/apt.conf.d/docker-autoremove-suggests"
    rm -f "$r/etc/apt/sources.list"
    cat >"$r/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    find "$r/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$r/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$r"/usr/share/{man,groff,info,lintian,linda}/* "$r"/var/cache/apt/* "$r"/var/lib/apt/lists/* \
        "$r"/var/log/*.log "$r"/var/log/apt/* "$r"/tmp/* "$r"/var/tmp/*
    find "$r/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    : >"$r/etc/resolv.conf"
    : >"$r/etc/hostname"
    # An imported image has no ENV: the PATH and command Debian's images have.
    local -a quiet=()
    [ "$engine" = podman ] && quiet=(-q)  # docker import has no --quiet (and prints only the id)
    tar --numeric-owner -C "$r" -c . | "$engine" import "${quiet[@]}" \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' \
        --change "LABEL org.opencontainers.image.description=\"$name made by deploy/image.sh with debootstrap from $mirror\"" \
        - "docker.io/library/$name" >/dev/null
    rm -rf "$root"
    say "made $name ($("$engine" image inspect --format '{{.Size}}' "docker.io/library/$name" | numfmt --to=si)B)"
}

ensure_base() {
    local name=$1
    if has_image "$name"; then return 0; fi
    if timeout 60 "$engine" pull "$name" >"$state/pull.log" 2>&1; then return 0; fi
    debootstrap_base "$name"
}

# ---------------------------------------------------------------------------------------------------------
# The build context: the deploy files, and the binary laid out as in the image

stage_context() {
    local binary=$1 context=$2
    [ -x "$binary" ] || die "no binary at $binary (make dist builds dist/yrden)"
    mkdir -p "$context/deploy" "$context/image-root/usr/local/bin"
    cp "$dockerfile" "$context/Dockerfile"
    cp "$repo/deploy/yrden.json" "$repo/deploy/seed-config.sh" "$repo/deploy/slim-root.sh" "$context/deploy/"
    strip -o "$context/image-root/usr/local/bin/yrden" "$binary" 2>/dev/null || cp "$binary" "$context/image-root/usr/local/bin/yrden"
    chmod 0755 "$context/image-root/usr/local/bin/yrden"
    local line path
    while read -r line; do
        case "$line" in *"not found"*) die "$binary: a library is not found: $line" ;; esac
        path=$(printf '%s\n' "$line" | sed -n 's/.*=> \(\/[^ ]*\) (.*/\1/p')
        case "$path" in "" | /lib/* | /lib64/* | /usr/lib/* | /usr/lib64/*) continue ;; esac
        install -D -m 0644 "$(readlink -f "$path")" "$context/image-root$path"
    done < <(ldd "$binary")
    chmod -R go-w,a+rX "$context/image-root"
}

# ---------------------------------------------------------------------------------------------------------

build() {
    local binary=$repo/dist/yrden tag=yrden:local
    local -a build_args=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --binary) binary=$2; shift 2 ;;
            --tag) tag=$2; shift 2 ;;
            --build-arg) build_args+=(--build-arg "$2"); shift 2 ;;
            *) die "unknown argument: $1" ;;
        esac
    done
    pick_engine
    mkdir -p "$state"
    # One build at a time on this machine: two runs must not debootstrap the base twice, nor race its tag.
    exec 9>"$state/lock"
    flock 9
    local started=$SECONDS base
    base=$(base_image)
    ensure_base "$base"
    fit_runtime "$base"
    local context
    context=$(mktemp -d "${TMPDIR:-/tmp}/yrden-image-context.XXXXXX")
    scratch+=("$context")
    stage_context "$binary" "$context"
    local -a pull=(--pull=never)
    [ "$engine" = docker ] && pull=()
    local previous
    previous=$("$engine" image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
    "$engine" build "${pull[@]}" -q -f "$context/Dockerfile" --target from-binary \
        --build-arg BINARY_ROOT=image-root "${build_args[@]}" -t "$tag" "$context" >/dev/null
    # The image this tag named before (another binary) would stay behind untagged, a few hundred MB a run;
    # the layers it shares with the new one (the base, the runtime stage) stay cached.
    if [ -n "$previous" ] && [ "$previous" != "$("$engine" image inspect --format '{{.Id}}' "$tag")" ]; then
        "$engine" rmi "$previous" >/dev/null 2>&1 || true
    fi
    "$engine" run --rm --network=none "$tag" check-config /etc/yrden/yrden.json >/dev/null 2>"$state/check.err" \
        || die "the image $tag was built but its yrden does not run there: $(tail -n 5 "$state/check.err")"
    say "built $tag from $binary with $engine in $((SECONDS - started)) s:" \
        "$("$engine" image inspect --format '{{.Size}}' "$tag" | numfmt --to=si)B"
    print_engine
}

# What runs the image here, on stdout: engine=NAME, and CONTAINERS_CONF=PATH when runs need the workaround.
print_engine() {
    echo "engine=$engine"
    if [ -n "${CONTAINERS_CONF:-}" ]; then echo "CONTAINERS_CONF=$CONTAINERS_CONF"; fi
}

case "${1:-}" in
    build) shift; build "$@" ;;
    engine)
        pick_engine
        mkdir -p "$state"
        exec 9>"$state/lock"
        flock 9
        ensure_base "$(base_image)"
        fit_runtime "$(base_image)"
        print_engine
        ;;
    *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
