"""Writes a GGUF file (llama.cpp's model format) from the service's float32 BERT graph (model.dequantized.onnx) and its
WordPiece vocabulary, so that llama.cpp's llama-server serves the same model, with the same weights, as the service
computes in-process: architecture `bert`, float32 tensors, [CLS] pooling (llama-server L2-normalises what it returns).

Weights are found by what the graph does with them, not by guessed names: each MatMul's constant right-hand side is
named by its node (/encoder/layer.N/attention/self/query/MatMul...), and the biases and LayerNorm parameters keep
their Hugging Face names. ONNX multiplies X @ W with W as [in, out]; llama.cpp stores a linear layer's weight as
PyTorch does, [out, in], so every matrix is transposed.

The file written is then checked: a BERT forward pass in numpy over the GGUF file's tensors, read back, must give the
ONNX graph's [CLS] vectors (onnx's reference evaluator) for a few texts' word pieces, at cosine >= 0.99999; a wrong
name, orientation or order fails provisioning here rather than as worse vectors later.
Usage: onnx_bert_to_gguf.py MODEL.onnx vocab.txt OUT.gguf"""
import math
import re
import sys

import gguf
import numpy as np
import onnx
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

N_CTX = 512
SPECIAL = {"[PAD]": "pad", "[UNK]": "unk", "[CLS]": "cls", "[SEP]": "sep", "[MASK]": "mask"}
ROLES = {
    "attention/self/query": "attn_q",
    "attention/self/key": "attn_k",
    "attention/self/value": "attn_v",
    "attention/output/dense": "attn_output",
    "intermediate/dense": "ffn_up",
    "output/dense": "ffn_down",
}
BIASES = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
}
NORMS = {"attention.output.LayerNorm": "attn_output_norm", "output.LayerNorm": "layer_output_norm"}


def graph_tensors(path: str) -> tuple[dict[str, np.ndarray], float]:
    """The GGUF tensors by llama.cpp's names, and the LayerNorm epsilon the graph uses."""
    graph = onnx.load(path).graph
    inits = {i.name: numpy_helper.to_array(i).astype(np.float32) for i in graph.initializer}
    out: dict[str, np.ndarray] = {}
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in inits:
            match = re.match(r"/encoder/layer\.(\d+)/(.+?)/MatMul", node.name)
            assert match and match.group(2) in ROLES, f"unexpected MatMul {node.name}"
            name = f"blk.{match.group(1)}.{ROLES[match.group(2)]}.weight"
            out[name] = np.ascontiguousarray(inits[node.input[1]].T)  # ONNX [in, out] -> llama.cpp [out, in]
        if node.op_type == "Gather" and node.input[0] in inits:
            table = re.match(r"/embeddings/(\w+)_embeddings/", node.name)
            assert table, f"unexpected Gather {node.name}"
            target = {"word": "token_embd", "token_type": "token_types", "position": "position_embd"}[table.group(1)]
            out[f"{target}.weight"] = inits[node.input[0]]
    for name, value in inits.items():
        if name.startswith("embeddings.LayerNorm."):
            out[f"token_embd_norm.{name.rsplit('.', 1)[1]}"] = value
        match = re.match(r"encoder\.layer\.(\d+)\.(.+)\.(weight|bias)$", name)
        if match and match.group(2) in NORMS:
            out[f"blk.{match.group(1)}.{NORMS[match.group(2)]}.{match.group(3)}"] = value
        elif match and match.group(2) in BIASES and match.group(3) == "bias":
            out[f"blk.{match.group(1)}.{BIASES[match.group(2)]}.bias"] = value
    eps = [
        float(numpy_helper.to_array(n.attribute[0].t))
        for n in graph.node
        if n.op_type == "Constant" and re.search(r"LayerNorm/Constant_1$", n.name)
    ]
    assert eps and len(set(eps)) == 1, f"LayerNorm epsilons {set(eps)}"
    return out, eps[0]


def main(model_path: str, vocab_path: str, target: str) -> None:
    tensors, eps = graph_tensors(model_path)
    n_embd = tensors["token_embd.weight"].shape[1]
    n_layer = 1 + max(int(k.split(".")[1]) for k in tensors if k.startswith("blk."))
    n_ff = tensors["blk.0.ffn_up.weight"].shape[0]
    per_layer = {k.split(".", 2)[2] for k in tensors if k.startswith("blk.0.")}
    assert len(per_layer) == 16, f"layer 0 has {sorted(per_layer)}"
    assert all(f"blk.{i}.{p}" in tensors for i in range(n_layer) for p in per_layer), "a layer lacks a tensor"
    words = open(vocab_path, encoding="utf-8").read().split("\n")
    words = words[:-1] if words and words[-1] == "" else words
    assert len(words) == tensors["token_embd.weight"].shape[0], "vocab.txt and the embedding table differ in size"

    writer = gguf.GGUFWriter(target, "bert")
    writer.add_name("bge-small-en-v1.5")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(n_embd)
    writer.add_feed_forward_length(n_ff)
    writer.add_block_count(n_layer)
    writer.add_head_count(n_embd // 32)  # bge-small: 12 heads of 32
    writer.add_layer_norm_eps(eps)
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.CLS)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_token_type_count(tensors["token_types.weight"].shape[0])
    # llama.cpp's WordPiece vocabulary: a word-initial piece carries a phantom space (U+2581), a ## piece does not
    control = gguf.TokenType.CONTROL
    types = [control if w in SPECIAL else gguf.TokenType.NORMAL for w in words]
    pieces = [w if t == control else (w[2:] if w.startswith("##") else "\u2581" + w) for w, t in zip(words, types)]
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(pieces)
    writer.add_token_types(types)
    ids = {role: words.index(word) for word, role in SPECIAL.items()}
    writer.add_bos_token_id(ids["cls"])
    writer.add_sep_token_id(ids["sep"])
    writer.add_unk_token_id(ids["unk"])
    writer.add_pad_token_id(ids["pad"])
    writer.add_mask_token_id(ids["mask"])
    writer.add_add_bos_token(True)
    writer.add_add_sep_token(True)
    for name in sorted(tensors, key=lambda k: (k.startswith("blk."), k)):
        writer.add_tensor(name, tensors[name])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"wrote {target}: {n_layer} layers, {n_embd} wide, {len(words)} tokens, {len(tensors)} tensors, eps {eps}")


CHECK_TEXTS = ["vitamin d and bone fractures in older adults", "what is the effect of statins on muscle pain ?"]
MIN_CHECK_COSINE = 0.99999


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps) * weight + bias


def gguf_cls_vector(t: dict[str, np.ndarray], ids: list[int], heads: int, eps: float) -> np.ndarray:
    """BERT as llama.cpp's graph computes it (exact GELU here), from the GGUF tensors; the [CLS] row, normalised."""
    n, width = len(ids), t["token_embd.weight"].shape[1]
    x = t["token_embd.weight"][ids] + t["token_types.weight"][0] + t["position_embd.weight"][:n]
    x = layer_norm(x, t["token_embd_norm.weight"], t["token_embd_norm.bias"], eps)
    erf = np.vectorize(math.erf)
    layer = 0
    while f"blk.{layer}.attn_q.weight" in t:
        p = f"blk.{layer}."
        lin = lambda h, name: h @ t[p + name + ".weight"].T + t[p + name + ".bias"]  # noqa: E731
        q, k, v = (lin(x, m).reshape(n, heads, -1).transpose(1, 0, 2) for m in ("attn_q", "attn_k", "attn_v"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(width // heads)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        attended = (weights / weights.sum(-1, keepdims=True) @ v).transpose(1, 0, 2).reshape(n, width)
        norm = lambda h, name: layer_norm(h, t[p + name + ".weight"], t[p + name + ".bias"], eps)  # noqa: E731
        x = norm(lin(attended, "attn_output") + x, "attn_output_norm")
        up = lin(x, "ffn_up")
        x = norm(lin(0.5 * up * (1 + erf(up / math.sqrt(2))), "ffn_down") + x, "layer_output_norm")
        layer += 1
    return x[0] / np.linalg.norm(x[0])


def check(model_path: str, vocab_path: str, target: str) -> float:
    """The worst cosine, over CHECK_TEXTS, between the GGUF file's vectors and the ONNX graph's."""
    words = {w: i for i, w in enumerate(open(vocab_path, encoding="utf-8").read().split("\n"))}
    reader = gguf.GGUFReader(target)
    tensors = {t.name: np.array(t.data, dtype=np.float64) for t in reader.tensors}
    heads = int(reader.fields["bert.attention.head_count"].parts[-1][0])
    eps = float(reader.fields["bert.attention.layer_norm_epsilon"].parts[-1][0])
    evaluator = ReferenceEvaluator(onnx.load(model_path))
    worst = 1.0
    for text in CHECK_TEXTS:
        ids = [words["[CLS]"], *(words.get(w, words["[UNK]"]) for w in text.split()), words["[SEP]"]]
        ones = np.ones((1, len(ids)), dtype=np.int64)
        feeds = {"input_ids": np.array([ids]), "attention_mask": ones, "token_type_ids": 0 * ones}
        (hidden,) = evaluator.run(["last_hidden_state"], feeds)
        expected = hidden[0][0] / np.linalg.norm(hidden[0][0])
        worst = min(worst, float(gguf_cls_vector(tensors, ids, heads, eps) @ expected))
    return worst


if __name__ == "__main__":
    main(*sys.argv[1:4])
    cosine = check(*sys.argv[1:4])
    if cosine < MIN_CHECK_COSINE:
        sys.exit(f"the GGUF file's vectors are at cosine {cosine:.6f} to the ONNX graph's (needs {MIN_CHECK_COSINE})")
    print(f"checked {sys.argv[3]}: cosine {cosine:.7f} to the ONNX graph's vectors")
