"""Writes a float32 ONNX graph from a dynamically quantized one: every MatMulInteger with constant int8 weights (and
the DynamicQuantizeLinear / Cast / Mul chain around it) becomes one MatMul with the weights dequantized,
W = (Wq - zero_point) * scale, and every Gather from a quantized embedding table (and its DequantizeLinear) one Gather
from the dequantized table. The weights are exactly the quantized model's; only the arithmetic changes: float32
everywhere, no integer kernels, so every x86-64 CPU computes the same vectors (int8 kernels differ between CPUs with
and without VNNI). Usage: dequantize_onnx.py IN OUT"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def main(source: str, target: str) -> None:
    model = onnx.load(source)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    def constant(name: str) -> np.ndarray:
        if name in inits:
            return numpy_helper.to_array(inits[name])
        node = producers[name]
        assert node.op_type == "Constant", f"{name} is neither an initializer nor a Constant"
        return numpy_helper.to_array(node.attribute[0].t)

    def only_consumer(name: str, op: str):
        users = consumers.get(name, [])
        assert len(users) == 1 and users[0].op_type == op, f"{name}: expected one {op} consumer, got {[u.op_type for u in users]}"
        return users[0]

    replaced = {}
    new_inits = []
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        a_q, w_q, _a_zero, w_zero = node.input
        quantize = producers[a_q]
        assert quantize.op_type == "DynamicQuantizeLinear", quantize.op_type
        x, a_scale = quantize.input[0], quantize.output[1]
        cast = only_consumer(node.output[0], "Cast")
        mul = only_consumer(cast.output[0], "Mul")
        scales = next(i for i in mul.input if i != cast.output[0])
        scales_node = producers[scales]
        assert scales_node.op_type == "Mul" and a_scale in scales_node.input, scales_node
        w_scale = next(i for i in scales_node.input if i != a_scale)
        weights = (constant(w_q).astype(np.float64) - constant(w_zero).astype(np.float64)) * constant(w_scale).astype(np.float64)
        name = w_q.removesuffix("_quantized") + "_dequantized"
        new_inits.append(numpy_helper.from_array(weights.astype(np.float32), name))
        replaced[id(mul)] = helper.make_node("MatMul", [x, name], [mul.output[0]], name=mul.name or mul.output[0])

    # quantized embedding tables: Gather(int8 table) -> DequantizeLinear becomes a Gather from the dequantized table
    for node in graph.node:
        if node.op_type != "DequantizeLinear":
            continue
        q_rows, scale, zero = node.input
        gather = producers[q_rows]
        assert gather.op_type == "Gather" and gather.input[0] in inits, gather
        table = (constant(gather.input[0]).astype(np.float32) - constant(zero).astype(np.float32)) * constant(scale).astype(np.float32)
        name = gather.input[0].removesuffix("_quantized") + "_dequantized"
        new_inits.append(numpy_helper.from_array(table.astype(np.float32), name))
        replaced[id(node)] = helper.make_node("Gather", [name, gather.input[1]], [node.output[0]], name=node.name or node.output[0], axis=0)

    nodes = [replaced.get(id(node), node) for node in graph.node]
    # drop what no longer feeds an output (the quantize, integer matmul and cast nodes), in reverse topological order
    needed = {o.name for o in graph.output}
    kept = []
    for node in reversed(nodes):
        if any(out in needed for out in node.output):
            kept.append(node)
            needed.update(node.input)
    kept.reverse()
    del graph.node[:]
    graph.node.extend(kept)
    used = {name for node in kept for name in node.input}
    remaining = [i for i in graph.initializer if i.name in used] + new_inits
    del graph.initializer[:]
    graph.initializer.extend(remaining)
    assert not any(n.op_type in ("MatMulInteger", "DynamicQuantizeLinear", "DequantizeLinear") for n in graph.node)
    onnx.checker.check_model(model)
    onnx.save(model, target)
    print(f"{len(replaced)} quantized operators dequantized; {len(kept)} nodes")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
