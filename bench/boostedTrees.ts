// Gradient-boosted regression trees for a probability, the judge's candidate second stage (bench/judgeStages.ts): the
// fitter (log loss, second-order steps, histogram splits, leaf-wise growth) and the prediction. Plain TS and
// deterministic: the same samples always give the same trees. A tree is flat arrays; node 0 is the root, and a node
// whose feature is -1 is a leaf that adds its value to the log-odds.
import type { Sample } from "./logisticRegression.js";

export interface RegressionTree {
  /** the feature column a node splits on; -1 at a leaf */
  feature: number[];
  /** a value at or below the threshold goes left */
  threshold: number[];
  left: number[];
  right: number[];
  /** a leaf's contribution to the log-odds (learning rate included); 0 at a split */
  value: number[];
}

export interface BoostedTrees {
  /** the log-odds every prediction starts from */
  base: number;
  trees: RegressionTree[];
}

export function treeValue(tree: RegressionTree, x: readonly number[]): number {
  let node = 0;
  for (let f = tree.feature[0]!; f >= 0; f = tree.feature[node]!)
    node = x[f]! <= tree.threshold[node]! ? tree.left[node]! : tree.right[node]!;
  return tree.value[node]!;
}

export function boostedProbability(model: BoostedTrees, x: readonly number[]): number {
  let z = model.base;
  for (const tree of model.trees) z += treeValue(tree, x);
  return 1 / (1 + Math.exp(-z));
}

export interface BoostingOptions {
  iterations: number;
  learningRate: number;
  /** leaves per tree at most */
  maxLeaves: number;
  /** samples in a leaf at least */
  minLeafSamples: number;
  /** L2 penalty on leaf values */
  lambda: number;
  /** split candidates per feature at most (quantiles of its values) */
  bins: number;
}

export const DEFAULT_BOOSTING: BoostingOptions = {
  iterations: 200,
  learningRate: 0.04,
  maxLeaves: 15,
  minLeafSamples: 40,
  lambda: 1,
  bins: 64,
};

/** Cut points of one feature: at most `bins - 1` of its values, at its quantiles, each the top of a bin. */
function cutsOf(values: Float64Array, bins: number): number[] {
  const sorted = Float64Array.from(values).sort();
  const cuts: number[] = [];
  for (let b = 1; b < bins; b++) {
    const cut = sorted[Math.floor((b * sorted.length) / bins) - 1];
    if (cut !== undefined && (cuts.length === 0 || cut > cuts[cuts.length - 1]!)) cuts.push(cut);
  }
  return cuts;
}

/** The bin of `x`: the first cut at or above it (cuts.length when above them all). */
function binOf(cuts: readonly number[], x: number): number {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cuts[mid]! >= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

interface Split {
  gain: number;
  feature: number;
  /** rows whose bin is at most this go left */
  bin: number;
}

interface Leaf {
  rows: Int32Array;
  node: number;
  /** the rows' sums of gradients and of hessians */
  G: number;
  H: number;
  best: Split | null;
}

export function fitBoostedTrees(samples: readonly Sample[], options: BoostingOptions = DEFAULT_BOOSTING): BoostedTrees {
  const n = samples.length;
  const d = samples[0]!.x.length;
  const columns = Array.from({ length: d }, (_, k) => Float64Array.from(samples, (s) => s.x[k]!));
  const cuts = columns.map((column) => cutsOf(column, options.bins));
  const binned = columns.map((column, k) => Uint16Array.from(column, (x) => binOf(cuts[k]!, x)));
  const y = Float64Array.from(samples, (s) => s.y);
  const positives = y.reduce((s, v) => s + v, 0);
  const prior = Math.min(Math.max(positives / n, 1e-6), 1 - 1e-6);
  const base = Math.log(prior / (1 - prior));
  const score = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const { lambda, minLeafSamples } = options;
  /** the rows' sums of gradients and of hessians */
  const sums = (rows: Int32Array): { G: number; H: number } => {
    let G = 0;
    let H = 0;
    for (const r of rows) {
      G += g[r]!;
      H += h[r]!;
    }
    return { G, H };
  };

  const bestSplit = (rows: Int32Array, G: number, H: number): Split | null => {
    if (rows.length < 2 * minLeafSamples) return null;
    const parent = (G * G) / (H + lambda);
    let best: Split | null = null;
    for (let k = 0; k < d; k++) {
      const bins = cuts[k]!.length + 1;
      if (bins < 2) continue;
      const gs = new Float64Array(bins);
      const hs = new Float64Array(bins);
      const cs = new Int32Array(bins);
      const column = binned[k]!;
      for (const r of rows) {
        const b = column[r]!;
        gs[b]! += g[r]!;
        hs[b]! += h[r]!;
        cs[b]!++;
      }
      let GL = 0;
      let HL = 0;
      let CL = 0;
      for (let b = 0; b < bins - 1; b++) {
        GL += gs[b]!;
        HL += hs[b]!;
        CL += cs[b]!;
        if (CL < minLeafSamples) continue;
        if (rows.length - CL < minLeafSamples) break;
        const GR = G - GL;
        const HR = H - HL;
        const gain = (GL * GL) / (HL + lambda) + (GR * GR) / (HR + lambda) - parent;
        if (gain > 1e-9 && (!best || gain > best.gain)) best = { gain, feature: k, bin: b };
      }
    }
    return best;
  };

  /** a leaf of `rows` at `node`: its sums serve its split search and, if it stays a leaf, its value */
  const leafOf = (rows: Int32Array, node: number): Leaf => {
    const { G, H } = sums(rows);
    return { rows, node, G, H, best: bestSplit(rows, G, H) };
  };

  const trees: RegressionTree[] = [];
  const all = Int32Array.from({ length: n }, (_, i) => i);
  for (let it = 0; it < options.iterations; it++) {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-score[i]!));
      g[i] = p - y[i]!;
      h[i] = Math.max(p * (1 - p), 1e-12);
    }
    const tree: RegressionTree = { feature: [-1], threshold: [0], left: [-1], right: [-1], value: [0] };
    const leaves: Leaf[] = [leafOf(all, 0)];
    while (leaves.length < options.maxLeaves) {
      let pick = -1;
      for (let l = 0; l < leaves.length; l++)
        if (leaves[l]!.best && (pick < 0 || leaves[l]!.best!.gain > leaves[pick]!.best!.gain)) pick = l;
      if (pick < 0) break;
      const leaf = leaves[pick]!;
      const { feature, bin } = leaf.best!;
      const column = binned[feature]!;
      const leftRows = leaf.rows.filter((r) => column[r]! <= bin);
      const rightRows = leaf.rows.filter((r) => column[r]! > bin);
      const left = tree.feature.length;
      const right = left + 1;
      for (let c = 0; c < 2; c++) {
        tree.feature.push(-1);
        tree.threshold.push(0);
        tree.left.push(-1);
        tree.right.push(-1);
        tree.value.push(0);
      }
      tree.feature[leaf.node] = feature;
      tree.threshold[leaf.node] = cuts[feature]![bin]!;
      tree.left[leaf.node] = left;
      tree.right[leaf.node] = right;
      leaves.splice(pick, 1, leafOf(leftRows, left), leafOf(rightRows, right));
    }
    for (const leaf of leaves) {
      const v = (-leaf.G / (leaf.H + lambda)) * options.learningRate;
      tree.value[leaf.node] = v;
      for (const r of leaf.rows) score[r]! += v;
    }
    trees.push(tree);
  }
  return { base, trees };
}
