#!/usr/bin/env bash
# Installs the Debian packages Sevivon needs, only when they are missing.
#   fonts    Hebrew fonts, for the simulator's renderer and the letter recognizer's generic model
#            (culmus-fancy and fonts-ldco only for building that model: decorative faces it trains on)
#   chromium headless browser tests and page screenshots (and the kiosk on a Pi)
#   espeak-ng results spoken aloud for players who cannot see the screen
#   sqlite3  inspecting the event log by hand
# Usage: scripts/install-system-deps.sh            (needs root, or sudo)
set -euo pipefail
PKGS=(culmus culmus-fancy fonts-ldco fonts-dejavu-core fonts-freefont-ttf fonts-noto-core fonts-sil-ezra
      chromium espeak-ng sqlite3 make python3-venv)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
