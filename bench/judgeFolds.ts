// The folds of the judge's cross-validation on SciFact train (bench/calibrateJudge.ts), and each fold's models:
// fitted on the other four folds' claims, with their delivery rules. bench/assisted.ts judges each claim with the
// models of its own fold, so the figures it prints are of claims the judge was not fitted on.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "../src/app/config.js";
import type { JudgeModels } from "./judgeStages.js";

export const FOLDS = 5;

export const JUDGE_FOLDS_PATH = join(REPO_ROOT, "bench", "judgeFolds.json");

/** The fold of an id no claim's documents place (an off-topic question): a hash of the id. */
function hashedFold(id: string): number {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % FOLDS;
}

const byClaimId = (a: string, b: string): number => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);

/**
 * The fold of each claim, by its id: claims that share a relevant document are one group, and a group is never split
 * across folds. 538 of the 809 train claims share a relevant document with another; split by claim, a held-out claim's
 * document would be in the training folds with a sibling's words, and a model that reads the claims' text could learn
 * the documents rather than relevance. Groups go, largest first (ties: smallest claim id), to the fold with the
 * fewest claims so far (ties: the lowest fold). Ids without relevant documents (off-topic questions) are hashed.
 */
export function claimFolds(relevant: ReadonlyMap<string, Iterable<string>>): (id: string) => number {
  const parent = new Map<string, string>();
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const claimOfDocument = new Map<string, string>();
  for (const [id, documents] of relevant) {
    const list = [...documents];
    if (list.length === 0) continue;
    parent.set(id, id);
    for (const doc of list) {
      const other = claimOfDocument.get(doc);
      if (other === undefined) claimOfDocument.set(doc, id);
      else parent.set(root(id), root(other));
    }
  }
  const groups = new Map<string, string[]>();
  for (const id of parent.keys()) {
    const r = root(id);
    groups.set(r, [...(groups.get(r) ?? []), id]);
  }
  const ordered = [...groups.values()]
    .map((ids) => ids.sort(byClaimId))
    .sort((a, b) => b.length - a.length || byClaimId(a[0]!, b[0]!));
  const sizes = Array.from({ length: FOLDS }, () => 0);
  const fold = new Map<string, number>();
  for (const ids of ordered) {
    const k = sizes.indexOf(Math.min(...sizes));
    sizes[k]! += ids.length;
    for (const id of ids) fold.set(id, k);
  }
  return (id) => fold.get(id) ?? hashedFold(id);
}

export interface JudgeFolds {
  $comment: string;
  /** fold k: the models fitted without fold k's claims */
  folds: JudgeModels[];
}

export async function loadJudgeFolds(): Promise<JudgeFolds> {
  return JSON.parse(await readFile(JUDGE_FOLDS_PATH, "utf8")) as JudgeFolds;
}
