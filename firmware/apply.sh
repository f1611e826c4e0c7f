#!/usr/bin/env bash
# Configure a Raspberry Pi below the app, idempotently: run it as often as you like.
#   - /boot/firmware/config.txt: the block from config.txt.fragment (I2C at 400 kHz, camera auto-detect),
#     kept between "# BEGIN sevivon" and "# END sevivon" (replaced, never duplicated; a backup is kept once)
#   - /etc/udev/rules.d/99-sevivon.rules: i2c, gpio and video devices for their groups
#   - /etc/modules-load.d/sevivon.conf: load i2c-dev at boot
#   - the groups i2c, gpio and video, with the table's user in them
# Usage: sudo firmware/apply.sh [--user NAME] [--root DIR]
#   --user  the account that runs the table (default: the user who ran sudo)
#   --root  apply to a directory tree instead of / (for testing; then no udev reload, no groups)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root=""
user="${SUDO_USER:-${USER:-}}"
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="${2:?--root needs a directory}"; shift 2 ;;
    --user) user="${2:?--user needs a name}"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "apply.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then
  echo "apply.sh: run it with sudo (it edits /boot/firmware/config.txt and /etc)" >&2
  exit 1
fi

reboot_needed=0

# --- config.txt ---------------------------------------------------------------------------------
config=""
for candidate in "$root/boot/firmware/config.txt" "$root/boot/config.txt"; do
  if [ -f "$candidate" ]; then config="$candidate"; break; fi
done
if [ -z "$config" ]; then
  echo "apply.sh: no config.txt under $root/boot/firmware or $root/boot: is this a Raspberry Pi?" >&2
  exit 1
fi
block="$(printf '# BEGIN sevivon\n%s\n# END sevivon' "$(cat "$here/config.txt.fragment")")"
current="$(awk '/^# BEGIN sevivon$/{inside=1} inside{print} /^# END sevivon$/{inside=0}' "$config")"
if [ "$current" != "$block" ]; then
  [ -f "$config.sevivon-backup" ] || cp -p "$config" "$config.sevivon-backup"
  tmp="$(mktemp)"
  # drop any old block, then append the current one
  awk '/^# BEGIN sevivon$/{skip=1} !skip{print} /^# END sevivon$/{skip=0}' "$config" > "$tmp"
  # no blank line pile-up at the end
  sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp"
  printf '\n%s\n' "$block" >> "$tmp"
  cat "$tmp" > "$config"
  rm -f "$tmp"
  echo "updated $config"
  reboot_needed=1
else
  echo "$config is already set up"
fi
# A setting elsewhere in the file that contradicts ours wins on some firmware: say so.
if awk '/^# BEGIN sevivon$/{skip=1} !skip{print} /^# END sevivon$/{skip=0}' "$config" \
    | grep -Eq '^[[:space:]]*dtparam=i2c_arm=off|^[[:space:]]*dtparam=i2c_arm_baudrate='; then
  echo "warning: $config sets i2c_arm elsewhere too; remove that line so Sevivon's block decides" >&2
fi

# --- udev rules and modules ---------------------------------------------------------------------
install_file() {  # install_file SOURCE DEST: copy only when different; prints what it did
  local src="$1" dest="$2"
  mkdir -p "$(dirname "$dest")"
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    echo "$dest is already set up"
    return 1
  fi
  install -m 0644 "$src" "$dest"
  echo "installed $dest"
  return 0
}

if install_file "$here/99-sevivon.rules" "$root/etc/udev/rules.d/99-sevivon.rules" && [ -z "$root" ]; then
  udevadm control --reload-rules && udevadm trigger || echo "warning: could not reload udev rules; reboot" >&2
fi
modules="$(mktemp)"
echo "i2c-dev" > "$modules"
if install_file "$modules" "$root/etc/modules-load.d/sevivon.conf" && [ -z "$root" ]; then
  modprobe i2c-dev || reboot_needed=1
fi
rm -f "$modules"

# --- groups -------------------------------------------------------------------------------------
if [ -z "$root" ]; then
  for group in i2c gpio video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
    if [ -n "$user" ] && [ "$user" != "root" ]; then
      if id -nG "$user" | tr ' ' '\n' | grep -qx "$group"; then
        echo "$user is already in $group"
      else
        usermod -aG "$group" "$user"
        echo "added $user to $group (log in again for it to count)"
      fi
    fi
  done
fi

if [ "$reboot_needed" -eq 1 ]; then
  echo "done: reboot for the config.txt changes to take effect (sudo reboot)"
else
  echo "done: nothing needed changing"
fi
