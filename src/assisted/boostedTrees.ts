// Gradient-boosted regression trees for a probability: the judge's second stage (bench/boostedTrees.ts fits them on
// SciFact train; judgeCalibration.json stores them). A tree is flat arrays; node 0 is the root, and a node whose
// feature is -1 is a leaf that adds its value to the log-odds.

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
  for (let f = tree.feature[0]!; f >= 0; f = tree.feature[node]!) node = x[f]! <= tree.threshold[node]! ? tree.left[node]! : tree.right[node]!;
  return tree.value[node]!;
}

export function boostedProbability(model: BoostedTrees, x: readonly number[]): number {
  let z = model.base;
  for (const tree of model.trees) z += treeValue(tree, x);
  return 1 / (1 + Math.exp(-z));
}
