#!/usr/bin/env bash
# Installs the reference Python SDK (PyPI redpine-sdk) into a venv in the cache, for the SDK contract test
# (test/sdk/redpineSdk.e2e.spec.ts). The SDK and its dependencies are pinned, so the contract is tested against
# the same client every time; a newer SDK is a deliberate bump here.
#
# Idempotent: skipped when the venv imports redpine at the pinned version and its stamp matches the pins.
# Environment: LITSEARCH_CACHE (default $HOME/.cache/litsearch), as scripts/provision.sh.
set -euo pipefail

: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
VENV="$CACHE/venv-redpine-sdk"
SDK_VERSION="0.1.9"
# redpine-sdk 0.1.9's Requires-Dist (attrs>=23.1, httpx>=0.27, python-dateutil>=2.8, typing-extensions>=4.12),
# pinned with their own dependencies to the set pip resolved on 2026-11-23, so a release upstream cannot change
# the client under test.
PIP_PINS=(
  "redpine-sdk==$SDK_VERSION"
  anyio==4.16.0
  attrs==26.1.0
  certifi==2026.10.18
  h11==0.16.0
  httpcore==1.0.9
  httpx==0.28.1
  idna==3.20
  python-dateutil==4.0.0
  typing_extensions==4.16.0
  tzdata==2026.6
)

say() { printf '[provision-redpine-sdk] %s\n' "$*"; }
fail() { printf '[provision-redpine-sdk] ERROR: %s\n' "$*" >&2; exit 1; }

command -v python3 >/dev/null || fail "python3 is required (it creates the venv the SDK is installed into)"
stamp="$VENV/.litsearch-pins"
wanted="$(printf '%s\n' "${PIP_PINS[@]}")"

installed_version() { "$VENV/bin/python" -c 'import redpine; print(redpine.__version__)' 2>/dev/null; }

if [[ -x $VENV/bin/python && "$(installed_version)" == "$SDK_VERSION" && "$(cat "$stamp" 2>/dev/null)" == "$wanted" ]]; then
  say "already installed: redpine-sdk $SDK_VERSION in $VENV"
  exit 0
fi

say "creating $VENV with redpine-sdk==$SDK_VERSION from PyPI"
mkdir -p "$CACHE/logs"
log="$CACHE/logs/redpine-sdk-install.log"
# Built in place (a venv's scripts name its path); the stamp, written last, marks it complete.
rm -rf "$VENV"
python3 -m venv "$VENV" >"$log" 2>&1 || { tail -n 20 "$log" >&2; fail "python3 -m venv failed (on Debian: apt-get install python3-venv); log: $log"; }
if ! "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input --only-binary=:all: "${PIP_PINS[@]}" >>"$log" 2>&1; then
  tail -n 30 "$log" >&2
  fail "pip install ${PIP_PINS[*]} from PyPI failed (full log: $log)"
fi
version="$(installed_version)" || fail "the venv at $VENV cannot import redpine after installing it (log: $log)"
[[ $version == "$SDK_VERSION" ]] || fail "the venv imports redpine $version, not the pinned $SDK_VERSION"
printf '%s\n' "$wanted" >"$stamp"
say "installed: redpine-sdk $version in $VENV"
