"""Reference vectors for the embedding test: runs an ONNX graph with onnx's own reference evaluator (plain numpy, none
of ONNX Runtime's kernels) on the word-piece ids given, pools the [CLS] token or the mean as asked, L2-normalizes.
Usage: reference_vectors.py GRAPH POOLING < {"ids": [[...], ...]} > {"vectors": [[...], ...]}"""
import json
import sys

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator


def main(graph_path: str, pooling: str) -> None:
    request = json.load(sys.stdin)
    model = onnx.load(graph_path)
    evaluator = ReferenceEvaluator(model)
    names = {i.name for i in model.graph.input}
    vectors = []
    for ids in request["ids"]:
        # one text a run: no padding, so nothing but the model decides the vector
        feeds = {"input_ids": np.array([ids], dtype=np.int64), "attention_mask": np.ones((1, len(ids)), dtype=np.int64)}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros((1, len(ids)), dtype=np.int64)
        (hidden,) = evaluator.run(["last_hidden_state"], feeds)
        tokens = hidden[0].astype(np.float64)
        vector = tokens[0] if pooling == "cls" else tokens.mean(axis=0)
        vectors.append((vector / np.linalg.norm(vector)).tolist())
    json.dump({"vectors": vectors}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
