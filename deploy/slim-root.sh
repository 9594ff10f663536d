#!/bin/sh
# slim-root TARGET [full]
#
# Lays out in TARGET the root filesystem of the image Yrden ships, from the runtime stage it runs in (Debian with
# the binary at /usr/local/bin/yrden). The Dockerfile's last stages copy TARGET onto an empty image.
#
# Slim (the default): only what runs there, found the way the loader finds it. The binary, the seed script's
# shell and a few tools for `exec` and the compose health check (bash, coreutils' basics, grep), unzip for the
# MCP registry's mcpb bundles, every library `ldd` says they load, and the data they read: the users, CA
# certificates, time zones, the config. No package manager, no perl, no iconv modules: Debian's slim base is 78 MB, this is about 25 MB. Each package a file came
# from keeps its copyright file and its status entry (var/lib/dpkg/status.d, where scanners look for it).
#
# Full: everything the runtime stage holds. Images built with the optional interpreters (WITH_PYTHON, WITH_NODE)
# need Debian's userland for what uvx and npx install and run.
set -eu

target=${1:?usage: slim-root TARGET [full]}
mode=${2:-slim}
mkdir -p "$target"

if [ "$mode" = full ]; then
    tar -C / --exclude=./proc --exclude=./sys --exclude=./dev --exclude=./run --exclude=".$target" -cf - . \
        | tar -C "$target" -xpf -
    exit 0
fi

# PATH as it is here, its directories resolved (bookworm's /bin is a link to usr/bin) and, when it is itself a
# link, what it points to as well.
place() {
    local path dir link
    dir=$(cd "$(dirname "$1")" && pwd -P)
    path=$dir/$(basename "$1")
    if [ -e "$target$path" ] || [ -L "$target$path" ]; then return 0; fi
    mkdir -p "$target$dir"
    cp -a "$path" "$target$path"
    echo "$path" >>"$target.placed"
    if [ -L "$path" ]; then
        link=$(readlink "$path")
        case $link in /*) place "$link" ;; *) place "$dir/$link" ;; esac
    fi
}

# An executable and every library it loads (none for a script).
place_program() {
    local library
    place "$1"
    for library in $(ldd "$1" 2>/dev/null | sed -n -e 's/.*=> \(\/[^ ]*\).*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
        place "$library"
    done
}

: >"$target.placed"
# The merged-/usr links, so /bin/sh and /lib64/ld-linux-x86-64.so.2 resolve as on Debian.
for link in /bin /sbin /lib /lib32 /lib64 /libx32; do
    if [ -L "$link" ]; then cp -a "$link" "$target$link"; fi
done

for program in /usr/local/bin/yrden /bin/sh /bin/bash /bin/cat /bin/cp /bin/mv /bin/rm /bin/ln /bin/chmod /bin/mkdir \
    /bin/ls /usr/bin/id /usr/bin/env /usr/bin/head /usr/bin/tail /bin/grep /usr/bin/unzip; do
    place_program "$program"
done
# A debug build's Swift runtime (the tests' image) sits beside its binary's RUNPATH: ldd found it above.

for file in /usr/local/bin/yrden-seed-config /etc/passwd /etc/group /etc/nsswitch.conf /etc/os-release \
    /etc/debian_version /etc/ssl/certs /usr/share/ca-certificates /usr/share/zoneinfo /etc/localtime /etc/timezone \
    /etc/yrden /home/yrden /var/lib/yrden; do
    if [ -e "$file" ]; then place "$file"; fi
done
for scratch in /tmp /var/tmp; do install -d -m 1777 "$target$scratch"; done
install -d -m 0755 "$target/run" "$target/proc" "$target/sys" "$target/dev"

# What it came from: each package's copyright and status entry.
install -d -m 0755 "$target/var/lib/dpkg/status.d"
# The files placed (directories listed), each also under its pre-merged-/usr name, which is what dpkg may know.
placed_files() {
    local path
    while read -r path; do
        if [ -d "$path" ] && [ ! -L "$path" ]; then find "$path" ! -type d; else echo "$path"; fi
    done <"$target.placed" | sed 'p; s|^/usr/|/|'
}
packages=$(placed_files | xargs -r dpkg-query -S 2>/dev/null | sed -n 's/^\([^:,]*\)[:,].*/\1/p' \
    | grep -E '^[a-z0-9][a-z0-9.+-]*$' | sort -u || true)
for package in $packages; do
    dpkg-query -s "$package" >"$target/var/lib/dpkg/status.d/$package"
    if [ -e "/usr/share/doc/$package/copyright" ]; then place "/usr/share/doc/$package/copyright"; fi
done
rm -f "$target.placed"
