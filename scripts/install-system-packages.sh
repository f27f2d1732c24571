#!/usr/bin/env bash
# Debian packages the test suite needs: chromium for the browser tests, ffmpeg (ffmpeg and
# ffprobe) for video. Without ffmpeg the studio falls back to the npm packages' binaries.
# Idempotent; runs apt-get only when something is missing.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
{ command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; } || missing+=(ffmpeg)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
