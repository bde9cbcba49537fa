#!/usr/bin/env bash
# `npm run up [-- --scaled]`: installs what the chosen shape runs (and nothing only the tests use), then starts it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
purpose=service
for arg in "$@"; do [[ $arg == --scaled ]] && purpose=scaled; done
bash scripts/setup.sh --for "$purpose"
exec node_modules/.bin/tsx src/app/main.ts "$@"
