// The folds of the judge's cross-validation on SciFact train (bench/calibrateJudge.ts), and each fold's models:
// fitted on the other four folds' claims, with their delivery rules. bench/assisted.ts judges each claim with the
// models of its own fold, so the figures it prints are of claims the judge was not fitted on.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/config.js';
import type { JudgeModels } from '../src/assisted/judge.js';

export const FOLDS = 5;

export const JUDGE_FOLDS_PATH = join(REPO_ROOT, 'bench', 'judgeFolds.json');

/** The fold of a claim (or an off-topic question) by its id. */
export function foldOf(id: string): number {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % FOLDS;
}

export interface JudgeFolds {
  $comment: string;
  /** fold k: the models fitted without fold k's claims */
  folds: JudgeModels[];
}

export async function loadJudgeFolds(): Promise<JudgeFolds> {
  return JSON.parse(await readFile(JUDGE_FOLDS_PATH, 'utf8')) as JudgeFolds;
}
