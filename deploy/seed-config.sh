#!/bin/sh
# yrden-seed-config SOURCE TARGET
#
# Copies the shipped config SOURCE to TARGET in the data volume, but only when TARGET does not exist yet.
# The gateway then runs with --config TARGET: servers added over the admin API are written back there and
# survive restarts, and a later change to SOURCE (a new image, an edited ConfigMap) never overwrites them.
# To start over from SOURCE, delete TARGET.
#
# The copy is made under a temporary name and renamed into place, so a crash cannot leave a half-written
# config that would then be kept forever. Mode 0600: a config may hold tokens.
set -eu

source=${1:?usage: yrden-seed-config SOURCE TARGET}
target=${2:?usage: yrden-seed-config SOURCE TARGET}

if [ -e "$target" ]; then
    echo "yrden-seed-config: keeping $target (delete it to start over from $source)"
    exit 0
fi
temporary="$target.seed-$$"
trap 'rm -f "$temporary"' EXIT
cp "$source" "$temporary"
chmod 0600 "$temporary"
mv "$temporary" "$target"
trap - EXIT
echo "yrden-seed-config: copied $source to $target"
