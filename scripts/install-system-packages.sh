#!/usr/bin/env bash
# What the test suite needs besides the checkout: Debian's chromium for the browser tests, ffmpeg
# (ffmpeg and ffprobe) for video (without it the studio falls back to the npm packages' binaries),
# PostgreSQL's server binaries for the team-mode tests (they start their own server in a temporary
# data dir: test/helpers/postgres.ts), and the npm packages. Idempotent: apt-get runs only when a program is missing, `npm ci` only when
# node_modules is missing or older than package-lock.json (the README's first command installed it).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci
fi
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
{ command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; } || missing+=(ffmpeg)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
