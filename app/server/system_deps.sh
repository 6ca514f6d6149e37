#!/bin/sh
# System packages for serving tests: Debian's Chromium (browser tests, driven by Python
# Playwright with executable_path=/usr/bin/chromium), PostgreSQL (the checkpointer test and
# `make serve-cluster`) and Redis (`make serve-cluster`: the run queue's wake-ups and streams).
# Idempotent and non-interactive: installs only what is missing, runs `apt-get update` only then.
set -eu

missing=""
dpkg -s chromium >/dev/null 2>&1 || missing="$missing chromium"
dpkg -s postgresql >/dev/null 2>&1 || missing="$missing postgresql"
dpkg -s redis-server >/dev/null 2>&1 || missing="$missing redis-server"

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
