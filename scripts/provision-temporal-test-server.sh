#!/usr/bin/env bash
# Installs Temporal's time-skipping test server (the Java one that TestWorkflowEnvironment.createTimeSkipping() runs)
# into the cache: its jars from Maven Central (io.temporal:temporal-test-server, pinned in
# scripts/temporal-test-server/pom.xml), a class-data-sharing archive so the JVM starts in about a second, and a
# launcher script that the SDK runs as `<launcher> <port> [flags]`. The SDK gives the server 5 s to listen.
#
# Idempotent: the jars are downloaded again only when the pom changes; the launcher is rewritten when it differs from
# what this script writes; the class-data archive is rebuilt when this java refuses it (new JDK, changed jars).
# Environment:
#   LITSEARCH_CACHE              cache root (default: $HOME/.cache/litsearch), as scripts/provision.sh
#   TEMPORAL_TEST_SERVER_JAVA    java 17+ to run it (default: java on PATH, symlinks resolved); provision.sh passes the JDK it picked
#   TEMPORAL_CLI                 Temporal CLI for the check (default: $LITSEARCH_CACHE/bin/temporal)
#   PROVISION_REVERIFY=1         start and check the server even when nothing changed
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
POM="$repo_root/scripts/temporal-test-server/pom.xml"
DIR="$CACHE/temporal-test-server"
LAUNCHER="$DIR/temporal-test-server"
ARCHIVE="$DIR/classes.jsa"
MAIN_CLASS="io.temporal.testserver.TestServer"
# Small heap, serial GC and the C1 compiler only: a test server holds a few workflows; it starts faster and stays
# near 75 MB resident.
JVM_FLAGS=(-Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData)
# sdk-core (EphemeralServer::start) tries to connect every 100 ms for 5 s, then kills the server.
SDK_START_BUDGET_S=5
JAVA="${TEMPORAL_TEST_SERVER_JAVA:-$(readlink -f "$(command -v java)" 2>/dev/null || true)}"
TEMPORAL_CLI="${TEMPORAL_CLI:-$CACHE/bin/temporal}"
reverify="${PROVISION_REVERIFY:-0}"

say() { printf '[provision-temporal-test-server] %s\n' "$*"; }
fail() { printf '[provision-temporal-test-server] ERROR: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
seconds_since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }'; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

server_pid=""
trap '[[ -n $server_pid ]] && kill -9 "$server_pid" 2>/dev/null; rm -rf "$DIR/lib.new" "$ARCHIVE.new" "$LAUNCHER.new"' EXIT

[[ -n $JAVA && -x $JAVA ]] || fail "no java found (TEMPORAL_TEST_SERVER_JAVA or java on PATH); provision.sh installs openjdk-17-jdk-headless"
java_major="$("$JAVA" -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')"
[[ -n $java_major && $java_major -ge 17 ]] || fail "$JAVA is Java '${java_major:-?}'; the test server is run on Java 17 or newer"
command -v python3 >/dev/null || fail "python3 is required (it finds a free port for the check)"
mkdir -p "$DIR" "$CACHE/logs"
changed=0

# 1. The jars, from Maven Central through the cache's Maven repository.
lib_key="$(sha256sum "$POM" | cut -d' ' -f1)"
if [[ -d $DIR/lib && "$(cat "$DIR/lib.stamp" 2>/dev/null)" == "$lib_key" ]]; then
  :
else
  command -v mvn >/dev/null || fail "mvn is missing (provision.sh installs Debian's maven); it resolves the server's jars"
  say "downloading io.temporal:temporal-test-server and its dependencies from Maven Central (mvn, into $CACHE/m2)"
  log="$CACHE/logs/temporal-test-server-maven.log"
  rm -rf "$DIR/lib.new"
  if ! JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$JAVA")")")" mvn -B --no-transfer-progress -f "$POM" \
      -Dmaven.repo.local="$CACHE/m2" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$DIR/lib.new" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    fail "mvn dependency:copy-dependencies failed (full log: $log)"
  fi
  rm -rf "$DIR/lib" && mv "$DIR/lib.new" "$DIR/lib"
  echo "$lib_key" >"$DIR/lib.stamp"
  changed=1
fi
version="$(ls "$DIR/lib" | sed -nE 's/^temporal-test-server-([0-9][0-9.]*)\.jar$/\1/p')"
[[ -n $version ]] || fail "no temporal-test-server-<version>.jar in $DIR/lib"
# An explicit, sorted class path: the archive below is only valid for the exact class path it was built with.
classpath="$(ls -1 "$DIR/lib"/*.jar | LC_ALL=C sort | paste -sd: -)"

# 2. The launcher the SDK runs (existing-path executable): `temporal-test-server <port> [--enable-time-skipping]`.
quote() { printf '%q' "$1"; }
launcher_text="#!/bin/sh
# Written by scripts/provision-temporal-test-server.sh: Temporal's time-skipping test server $version (Java).
# Usage: temporal-test-server <port> [--enable-time-skipping]; exec, so that killing this process stops the JVM.
exec $(quote "$JAVA") ${JVM_FLAGS[*]} -Xshare:auto -XX:SharedArchiveFile=$(quote "$ARCHIVE") -cp $(quote "$classpath") $MAIN_CLASS \"\$@\""
if [[ ! -x $LAUNCHER || "$(cat "$LAUNCHER")" != "$launcher_text" ]]; then
  printf '%s\n' "$launcher_text" >"$LAUNCHER.new" && chmod 755 "$LAUNCHER.new" && mv "$LAUNCHER.new" "$LAUNCHER"
  say "wrote the launcher $LAUNCHER"
  changed=1
fi

# Starts the server (java ... or the launcher, given as arguments before the port) on a free port; sets server_pid,
# server_port and start_seconds.
start_server() {
  local log="$1" t0; shift
  server_port="$(free_port)"
  t0="$(now)"
  "$@" "$server_port" >"$log" 2>&1 </dev/null &
  server_pid=$!
  for _ in $(seq 1 600); do
    listening "$server_port" && { start_seconds="$(seconds_since "$t0")"; return 0; }
    kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$log" >&2; fail "the test server exited before it listened (log: $log)"; }
    sleep 0.05
  done
  tail -n 20 "$log" >&2
  fail "the test server did not listen on port $server_port within 30 s (log: $log)"
}

stop_server() {
  kill -TERM "$server_pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# A workflow started over gRPC with the Temporal CLI and described back (no worker: it simply stays open).
round_trip() {
  local address="127.0.0.1:$server_port" out
  [[ -x $TEMPORAL_CLI ]] || fail "the Temporal CLI $TEMPORAL_CLI is missing (TEMPORAL_CLI; provision.sh installs it first); the check talks to the server with it"
  "$TEMPORAL_CLI" workflow start --address "$address" --type provisionCheck --task-queue provision-check \
    --workflow-id provision-check --execution-timeout 24h >/dev/null 2>&1 || return 1
  out="$("$TEMPORAL_CLI" workflow describe --address "$address" --workflow-id provision-check -o json 2>&1)" || return 1
  grep -q '"WORKFLOW_EXECUTION_STATUS_RUNNING"' <<<"$out"
}

archive_usable() { "$JAVA" "${JVM_FLAGS[@]}" -Xshare:on -XX:SharedArchiveFile="$ARCHIVE" -cp "$classpath" -version >/dev/null 2>&1; }

# 3. The class-data archive: classes as loaded by a start and a gRPC round trip, dumped when the JVM exits.
if [[ -f $ARCHIVE ]] && archive_usable; then
  :
else
  say "building the class-data archive $ARCHIVE (java $java_major)"
  rm -f "$ARCHIVE" "$ARCHIVE.new"
  start_server "$CACHE/logs/temporal-test-server-archive.log" \
    "$JAVA" "${JVM_FLAGS[@]}" -XX:ArchiveClassesAtExit="$ARCHIVE.new" -cp "$classpath" "$MAIN_CLASS"
  say "  started without the archive in ${start_seconds}s"
  round_trip || say "  (the gRPC round trip failed while building the archive; the check below repeats it)"
  stop_server
  [[ -f $ARCHIVE.new ]] || fail "the JVM wrote no class-data archive (log: $CACHE/logs/temporal-test-server-archive.log)"
  mv "$ARCHIVE.new" "$ARCHIVE"
  archive_usable || fail "$JAVA refuses the class-data archive it has just written ($ARCHIVE)"
  changed=1
fi

# 4. The check: the launcher, as the SDK runs it, listens in time and answers gRPC.
if [[ $changed == 1 || $reverify == 1 ]]; then
  start_server "$CACHE/logs/temporal-test-server-check.log" "$LAUNCHER"
  round_trip || { stop_server; fail "the test server on port $server_port did not start and describe a workflow (Temporal CLI $TEMPORAL_CLI)"; }
  stop_server
  say "  check passed: listening after ${start_seconds}s (the SDK waits up to ${SDK_START_BUDGET_S}s), started and described a workflow over gRPC"
  if awk -v s="$start_seconds" -v b="$SDK_START_BUDGET_S" 'BEGIN { exit !(s > b * 0.6) }'; then
    say "  WARNING: a start of ${start_seconds}s leaves little of the SDK's ${SDK_START_BUDGET_S}s; a busy machine may make createTimeSkipping() time out"
  fi
  if [[ $changed == 1 ]]; then say "installed: temporal-test-server $version ($LAUNCHER, java $java_major)"
  else say "already installed and re-checked: temporal-test-server $version ($LAUNCHER, java $java_major)"; fi
else
  say "already installed: temporal-test-server $version ($LAUNCHER, java $java_major)"
fi
