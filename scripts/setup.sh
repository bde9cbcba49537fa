#!/usr/bin/env bash
# Brings a clone to a runnable state: npm dependencies (from the lockfile) and the provisioned components. Idempotent.
# Arguments go to scripts/provision.sh: --for service|scaled|tests (default tests: everything the tests need).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# onnxruntime-node would otherwise try to download CUDA libraries at install time
export ONNXRUNTIME_NODE_INSTALL_CUDA=skip
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ "$(cat node_modules/.litsearch-lock-hash 2>/dev/null)" != "$lock_hash" ]]; then
  # npm install, not npm ci: npm 11 leaves @swc/core's unpublished platform packages out of the lockfile,
  # which npm ci then refuses; install still follows the lockfile's versions
  echo "[setup] npm install from package-lock.json (downloads are cached in ~/.npm)"
  started=$SECONDS
  # --prefer-offline: what the cache holds is used without asking the registry again (a fresh clone installs in seconds)
  npm install --no-audit --no-fund --prefer-offline
  echo "[setup] npm install took $((SECONDS - started)) s"
  echo "$lock_hash" > node_modules/.litsearch-lock-hash
else
  echo "[setup] npm dependencies match package-lock.json"
fi
bash scripts/provision.sh "$@"
# the operator CLI as JavaScript (dist/app): `litsearch` starts without transpiling TypeScript
node scripts/build-cli.mjs
