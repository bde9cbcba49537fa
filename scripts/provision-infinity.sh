#!/usr/bin/env bash
# Provisions a second real embedding server, opt-in (not `npm run provision`, not the suite's run): Infinity (PyPI
# infinity-emb, MIT), an OpenAI-compatible embedding server that runs ONNX Runtime, the runtime the service embeds
# with in-process. For bench:remote-embedding --server infinity, and the real-server test run on it
# (REAL_EMBEDDING_SERVER=infinity). It serves the service's own float32 graph (model.dequantized.onnx) from a folder
# of links to the provisioned files, with the BERT configuration and tokenizer settings Infinity reads.
# Writes $CACHE/infinity-server.json.
#
# Why beside llama-server: llama.cpp computes bge-small with about twice ONNX Runtime's CPU, so it cannot tell the
# port's own cost from the server's arithmetic. Why opt-in: Infinity's ONNX path imports optimum, and optimum needs
# torch, which PyPI ships only with its CUDA libraries on x86-64 Linux (about 6 GB installed).
# Idempotent: the virtualenv is rebuilt only when its stamp (the pins and the constraints file) changes; the model
# folder is rewritten only when its contents would differ.
# Environment: LITSEARCH_CACHE (default ~/.cache/litsearch).
set -euo pipefail

readonly PIP_PINS=("infinity-emb[server,optimum]==0.0.78" "optimum[onnxruntime]==1.24.0" transformers==4.48.3
  torch==2.5.1 numpy==1.26.4)

CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
constraints="$here/python/infinity-constraints.txt"
step() { printf '[provision-infinity] %s\n' "$*"; }
fail() { printf '[provision-infinity] ERROR: %s\n' "$*" >&2; exit 1; }

MODEL_DIR="$CACHE/model/bge-small-en-v1.5-int8"
[[ -f $MODEL_DIR/model.dequantized.onnx && -f $MODEL_DIR/vocab.txt ]] \
  || fail "$MODEL_DIR holds no model.dequantized.onnx and vocab.txt (run npm run provision first)"

# 1. The server's virtualenv
VENV="$CACHE/venv-infinity"
key="$(printf '%s\n' "${PIP_PINS[*]}" | cat - "$constraints" | sha256sum | cut -d' ' -f1)"
if [[ -x $VENV/bin/infinity_emb && -f $VENV/litsearch.stamp && $(cat "$VENV/litsearch.stamp") == "$key" ]]; then
  step "Infinity present: $VENV/bin/infinity_emb"
else
  step "creating Infinity's virtualenv at $VENV (${PIP_PINS[*]}; about 3 GB of wheels, cached by pip)"
  rm -rf "$VENV"
  python3 -m venv "$VENV" || fail "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -c "$constraints" \
    "${PIP_PINS[@]}" || fail "pip could not install Infinity (see above)"
  "$VENV/bin/python" -c 'from optimum.onnxruntime import ORTModelForFeatureExtraction' \
    || fail "Infinity's ONNX Runtime path does not import (see above)"
  echo "$key" >"$VENV/litsearch.stamp"
fi

# 2. The served model: links to the provisioned graph and vocabulary, and the configuration Infinity reads (bge-small:
# BERT, 12 layers of 384 with 12 heads of 32, 1,536 wide feed-forward; lower-cased word pieces). At its first start
# Infinity writes its graph-optimized copy (model_optimized.onnx) and its own configuration files into this folder, so
# the folder is written again only when what it is written from changes (its stamp), not when Infinity's files differ.
SERVED="$CACHE/infinity-model/bge-small-en-v1.5"
CONFIG='{"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 384, "num_hidden_layers": 12,
 "num_attention_heads": 12, "intermediate_size": 1536, "hidden_act": "gelu", "vocab_size": 30522,
 "type_vocab_size": 2, "max_position_embeddings": 512, "layer_norm_eps": 1e-12, "pad_token_id": 0}'
TOKENIZER='{"tokenizer_class": "BertTokenizer", "do_lower_case": true, "model_max_length": 512, "unk_token": "[UNK]",
 "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"}'
served_key="$(printf '%s\n%s\n%s\n' "$(sha256sum "$MODEL_DIR/model.dequantized.onnx" | cut -d' ' -f1)" "$CONFIG" \
  "$TOKENIZER" | sha256sum | cut -d' ' -f1)"
if [[ -f $SERVED/litsearch.stamp && $(cat "$SERVED/litsearch.stamp") == "$served_key" ]]; then
  step "served model present: $SERVED"
else
  step "writing the served model folder $SERVED"
  rm -rf "$SERVED"
  mkdir -p "$SERVED"
  ln -s "$MODEL_DIR/model.dequantized.onnx" "$SERVED/model.onnx"
  ln -s "$MODEL_DIR/vocab.txt" "$SERVED/vocab.txt"
  printf '%s\n' "$CONFIG" >"$SERVED/config.json"
  printf '%s\n' "$TOKENIZER" >"$SERVED/tokenizer_config.json"
  echo "$served_key" >"$SERVED/litsearch.stamp"
fi

# 3. The manifest the benchmark and the test read, written only when it changes
MANIFEST="$CACHE/infinity-server.json"
text="$(python3 -c 'import json, sys; print(json.dumps({
    "server": sys.argv[1], "model": sys.argv[2], "servedModelName": "BAAI/bge-small-en-v1.5",
    "source": "PyPI infinity-emb==0.0.78 (ONNX Runtime through optimum)",
    "args": ["--engine", "optimum", "--device", "cpu", "--pooling-method", "cls", "--onnx-do-not-prefer-quantized",
             "--no-bettertransformer", "--url-prefix", "/v1"]}, indent=2))' "$VENV/bin/infinity_emb" "$SERVED")"
if [[ ! -f $MANIFEST || "$(cat "$MANIFEST")" != "$text" ]]; then
  printf '%s\n' "$text" >"$MANIFEST.part" && mv "$MANIFEST.part" "$MANIFEST"
fi
step "manifest $MANIFEST"
