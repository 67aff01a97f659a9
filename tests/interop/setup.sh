#!/usr/bin/env bash
# Creates tests/interop/.venv with python3 and installs the pinned
# requirements.txt (the official A2A Python SDK 0.3.26 and friends).
# Idempotent: when every pin is already installed at exactly that version,
# pip is not run at all.
#
# Needs only python3 (+ pip for the fallbacks). If `python3 -m venv` does not
# work (Debian without python3-venv), it tries, in order: apt-get install
# python3-venv (as root; INTEROP_NO_APT=1 skips this), an installed virtualenv,
# pip install --user virtualenv.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
REQ="$HERE/requirements.txt"
PY="$VENV/bin/python"

say() { echo "setup.sh: $*"; }
die() { echo "setup.sh: ERROR: $*" >&2; exit 1; }

command -v python3 >/dev/null || die "python3 not found"

venv_works() { [ -x "$PY" ] && "$PY" -c 'import sys, pip' >/dev/null 2>&1; }

make_venv() {
  say "creating virtualenv at $VENV with $(python3 --version 2>&1)"
  rm -rf "$VENV"
  if python3 -m venv "$VENV" >/dev/null 2>&1 && venv_works; then
    say "created with python3 -m venv"; return 0
  fi
  rm -rf "$VENV"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ -z "${INTEROP_NO_APT:-}" ]; then
    say "python3 -m venv failed; installing python3-venv with apt-get"
    if { apt-get install -y -q python3-venv >/dev/null 2>&1 \
         || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q python3-venv >/dev/null 2>&1; }; } \
       && python3 -m venv "$VENV" >/dev/null 2>&1 && venv_works; then
      say "created with python3 -m venv (after apt-get install python3-venv)"; return 0
    fi
    rm -rf "$VENV"
  fi
  if ! python3 -m virtualenv --version >/dev/null 2>&1; then
    say "trying pip install --user virtualenv"
    python3 -m pip install -q --user virtualenv >/dev/null 2>&1 \
      || python3 -m pip install -q --user --break-system-packages virtualenv >/dev/null 2>&1 \
      || die "could not get a working venv: python3 -m venv failed and virtualenv could not be installed"
  fi
  python3 -m virtualenv -q "$VENV" >/dev/null && venv_works \
    || die "python3 -m virtualenv failed to create $VENV"
  say "created with virtualenv"
}

# Exit 0 iff every `name==version` pin in requirements.txt is installed exactly.
pins_satisfied() {
  "$PY" - "$REQ" <<'EOF'
import re, sys
from importlib.metadata import PackageNotFoundError, version
bad = []
for line in open(sys.argv[1], encoding='utf-8'):
    line = line.split('#', 1)[0].strip()
    if not line:
        continue
    m = re.fullmatch(r'([A-Za-z0-9_.\-]+)(\[[^\]]*\])?==([^\s;]+)', line)
    if not m:
        bad.append(f'unpinned requirement: {line}')
        continue
    name, want = m.group(1), m.group(3)
    try:
        have = version(name)
    except PackageNotFoundError:
        bad.append(f'{name} missing')
        continue
    if have != want:
        bad.append(f'{name} {have} != {want}')
for b in bad[:5]:
    print(f'setup.sh:   {b}')
if len(bad) > 5:
    print(f'setup.sh:   ... and {len(bad) - 5} more')
sys.exit(1 if bad else 0)
EOF
}

if venv_works; then
  say "virtualenv exists: $VENV ($("$PY" --version 2>&1))"
else
  make_venv
fi

if pins_satisfied >/dev/null; then
  say "all pins in requirements.txt already installed; nothing to do"
else
  pins_satisfied || true
  say "installing requirements.txt"
  "$PY" -m pip install --disable-pip-version-check -q -r "$REQ"
  pins_satisfied || die "pins still not satisfied after pip install"
  say "installed: $("$PY" -m pip --disable-pip-version-check show a2a-sdk 2>/dev/null | awk '/^Version/{print "a2a-sdk " $2}')"
fi
