// The provisioned cross-encoder (fails, never skips, when it is missing): pairs are laid out as the model was trained
// on them, a passage that answers the query outscores one that does not, a pair scores the same alone or among others,
// and a cache without the model says how to provision it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheDirFrom } from '../../src/config.js';
import { loadWordpieceTokenizer } from '../../src/embedding/wordpieceTokenizer.js';
import {
  createCrossEncoder,
  crossEncoderManifestPath,
  encodePairs,
  loadCrossEncoderManifest,
  PAIR_TOKENS,
  QUERY_TOKENS,
  RelevanceModelNotProvisionedError,
  type CrossEncoderManifest,
  type RelevanceModel,
} from '../../src/relevance/crossEncoder.js';

let manifest: CrossEncoderManifest;
let model: RelevanceModel;

beforeAll(async () => {
  manifest = await loadCrossEncoderManifest(crossEncoderManifestPath(cacheDirFrom(process.env)));
  model = await createCrossEncoder({ manifest });
});

afterAll(async () => {
  await model?.close();
});

const CLAIM = 'Vitamin D supplementation reduces the risk of hip fractures in elderly women.';
const ANSWER = 'Vitamin D and calcium supplementation to prevent fractures in elderly women. In this randomized trial, cholecalciferol lowered the rate of hip fractures among women over 70.';
const UNRELATED = 'The mitochondrial genome of yeast encodes several subunits of the respiratory chain and ATP synthase.';
const NEARBY = 'Serum vitamin D levels were measured in children with asthma and related to the number of exacerbations.';

describe('cross-encoder', () => {
  it('lays a pair out as [CLS] query [SEP] passage [SEP] with segment ids, and truncates the query, then the passage', async () => {
    const tokenizer = await loadWordpieceTokenizer(join(manifest.dir, manifest.vocab), { modelName: manifest.name, lowercase: manifest.lowercase });
    const cls = tokenizer.idOf('[CLS]')!;
    const sep = tokenizer.idOf('[SEP]')!;
    const [short, other] = encodePairs(tokenizer, 'vitamin d', ['hip fractures', 'bone']);
    const q = tokenizer.pieceIds('vitamin d');
    const p = tokenizer.pieceIds('hip fractures');
    expect(short!.ids).toEqual([cls, ...q, sep, ...p, sep]);
    expect(short!.typeIds).toEqual([0, ...q.map(() => 0), 0, ...p.map(() => 1), 1]);
    expect(other!.ids).toEqual([cls, ...q, sep, ...tokenizer.pieceIds('bone'), sep]);

    const [long] = encodePairs(tokenizer, 'word '.repeat(200), ['passage '.repeat(1000)]);
    expect(long!.ids).toHaveLength(PAIR_TOKENS);
    expect(long!.typeIds.filter((t) => t === 0)).toHaveLength(QUERY_TOKENS + 2);
    expect(long!.ids.at(-1)).toBe(sep);
  });

  it('scores the passage that answers the claim above one on the same topic and one on another', async () => {
    const [answer, nearby, unrelated] = await model.score(CLAIM, [ANSWER, NEARBY, UNRELATED]);
    expect(answer).toBeGreaterThan(nearby!);
    expect(nearby).toBeGreaterThan(unrelated!);
    expect(answer).toBeGreaterThan(0);
    expect(unrelated).toBeLessThan(0);
  });

  it('gives a pair the same score alone as among others (one pair a run)', async () => {
    const [alone] = await model.score(CLAIM, [NEARBY]);
    const among = await model.score(CLAIM, [UNRELATED, ANSWER, NEARBY, 'x '.repeat(400)]);
    expect(among[2]).toBe(alone);
    expect(await model.score(CLAIM, [])).toEqual([]);
  });

  it('says how to provision it when the cache has no model', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'litsearch-no-reranker-'));
    try {
      const err = await createCrossEncoder({ manifest: crossEncoderManifestPath(empty) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RelevanceModelNotProvisionedError);
      expect((err as Error).message).toMatch(/run npm run provision/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
