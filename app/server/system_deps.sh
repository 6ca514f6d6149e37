#!/bin/sh
# System packages for tests and serving: Debian's Chromium (browser tests, driven by Python
# Playwright with executable_path=/usr/bin/chromium), PostgreSQL (the checkpointer test and
# `make serve-cluster`), Redis (`make serve-cluster`: the run queue's wake-ups and streams) and
# groff (`acrag ingest` renders man pages with it, as `man` does).
# Idempotent and non-interactive: installs only what is missing, runs `apt-get update` only then.
set -eu

missing=""
dpkg -s chromium >/dev/null 2>&1 || missing="$missing chromium"
dpkg -s postgresql >/dev/null 2>&1 || missing="$missing postgresql"
dpkg -s redis-server >/dev/null 2>&1 || missing="$missing redis-server"
dpkg -s groff-base >/dev/null 2>&1 || missing="$missing groff-base"

if [ -z "$missing" ]; then
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing system packages:$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $missing
