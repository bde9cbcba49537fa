#!/usr/bin/env bash
# Brings a clone to a runnable state: npm dependencies (from the lockfile) and the provisioned components. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# onnxruntime-node would otherwise try to download CUDA libraries at install time
export ONNXRUNTIME_NODE_INSTALL_CUDA=skip
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ "$(cat node_modules/.litsearch-lock-hash 2>/dev/null)" != "$lock_hash" ]]; then
  # npm install, not npm ci: npm 11 leaves @swc/core's unpublished platform packages out of the lockfile,
  # which npm ci then refuses; install still follows the lockfile's versions
  echo "[setup] npm install from package-lock.json (downloads are cached in ~/.npm)"
  npm install --no-audit --no-fund
  echo "$lock_hash" > node_modules/.litsearch-lock-hash
else
  echo "[setup] npm dependencies match package-lock.json"
fi
bash scripts/provision.sh
# the operator CLI as JavaScript (dist/app): `litsearch` starts without transpiling TypeScript
node scripts/build-cli.mjs
