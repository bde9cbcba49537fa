// The embedded engine and the OpenSearch adapter rank the same SciFact chunks identically (sparse, dense, hybrid,
// with filters), analyze text identically, and both treat re-indexing as a no-op. Needs a real OpenSearch node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilterNode } from '../../src/filters/ast.js';
import { createEmbeddedEngine } from '../../src/search/embedded/embeddedEngine.js';
import { analyzeEnglish } from '../../src/search/embedded/englishAnalyzer.js';
import { createOpenSearchEngine } from '../../src/search/opensearch/openSearchEngine.js';
import type { ChunkRecord, RetrievalMode, SearchEngine, SearchHit } from '../../src/search/port.js';
import { requireComponent } from '../setup/components.js';
import { loadScifactChunks, loadScifactQueries, pseudoRandomVector } from './scifactFixture.js';

const DIMS = 384;
const INDEX = 'scifact-parity';
const FILTERS: Array<FilterNode | undefined> = [
  undefined,
  { kind: 'range', field: 'publication_date', bounds: { gte: '2005', lte: '2012-06' } },
  { kind: 'not', child: { kind: 'eq', field: 'issn', value: '0000-0001' } },
  { kind: 'in', field: 'journal', values: ['nature', 'CELL'] },
  {
    kind: 'and',
    children: [
      { kind: 'eq', field: 'open_access', value: true },
      { kind: 'or', children: [{ kind: 'eq', field: 'publication_date', value: '2014' }, { kind: 'eq', field: 'article_type', value: 'review' }] },
    ],
  },
  { kind: 'not', child: { kind: 'exists', field: 'issn' } },
];

describe('embedded and OpenSearch engines agree', () => {
  let url: string;
  let dir: string;
  let embedded: SearchEngine;
  let opensearch: ReturnType<typeof createOpenSearchEngine>;
  let chunks: ChunkRecord[];

  beforeAll(async () => {
    // fails (does not skip) when the run did not start OpenSearch
    url = requireComponent('opensearchUrl');
    dir = mkdtempSync(join(tmpdir(), 'engine-parity-'));
    embedded = createEmbeddedEngine({ dir });
    opensearch = createOpenSearchEngine({ url, indexPrefix: `parity-${process.pid}-` });
    // Vectors are pseudo-random, seeded from the text: parity needs identical inputs, not meaning.
    // The real embedding model is exercised by the embedding and quality tests.
    chunks = loadScifactChunks(300, DIMS);
    for (const engine of [embedded, opensearch]) {
      await engine.ensureIndex(INDEX, DIMS);
      await engine.indexChunks(INDEX, chunks);
      await engine.commit(INDEX);
    }
  });

  afterAll(async () => {
    await opensearch?.deleteIndex(INDEX);
    await opensearch?.close();
    await embedded?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports how the node scores vectors', async () => {
    const storage = await opensearch.vectorStorage();
    expect(['binary', 'knn']).toContain(storage);
    console.log(`[engine parity] OpenSearch vector scoring: ${storage === 'knn' ? 'k-NN plugin' : 'painless script over binary doc values'}`);
    expect(await opensearch.ping()).toBe(true);
    expect((await opensearch.stats(INDEX)).chunks).toBe(300);
  });

  it('analyzes titles, abstracts and queries into the same terms as the english analyzer', async () => {
    const texts = [...chunks.slice(0, 100).flatMap((chunk) => [chunk.metadata.title as string, chunk.text]), ...loadScifactQueries(50).map((q) => q.text)];
    for (const text of texts) {
      const response = await fetch(`${url}/_analyze`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ analyzer: 'english', text }),
      });
      const { tokens } = (await response.json()) as { tokens: Array<{ token: string }> };
      expect(analyzeEnglish(text)).toEqual(tokens.map((token) => token.token));
    }
  });

  const modes: RetrievalMode[] = ['sparse', 'dense', 'hybrid'];
  for (const mode of modes) {
    it(`returns the same top 10 in ${mode} mode, with and without filters`, async () => {
      const queries = loadScifactQueries(25);
      let compared = 0;
      let nonEmpty = 0;
      for (const filter of FILTERS) {
        for (const query of queries) {
          const request = { index: INDEX, mode, text: query.text, vector: pseudoRandomVector(query.text, DIMS), limit: 10, filter };
          const [fromEmbedded, fromOpenSearch] = await Promise.all([embedded.search(request), opensearch.search(request)]);
          const where = `${mode} "${query.text}" filter ${JSON.stringify(filter)}`;
          expect(fromOpenSearch.map((hit) => hit.id), where).toEqual(fromEmbedded.map((hit) => hit.id));
          fromEmbedded.forEach((hit, i) => expectSameScores(hit, fromOpenSearch[i], where));
          compared++;
          if (fromEmbedded.length > 0) nonEmpty++;
        }
      }
      expect(compared).toBe(FILTERS.length * 25);
      expect(nonEmpty).toBeGreaterThan(compared * 0.9);
    });
  }

  it('returns stored chunks unchanged, vectors included', async () => {
    const wanted = [chunks[0].id, 'no-such-chunk', chunks[17].id];
    const [fromOpenSearch, fromEmbedded] = await Promise.all([opensearch.getChunks(INDEX, wanted), embedded.getChunks(INDEX, wanted)]);
    expect(fromOpenSearch).toEqual([chunks[0], chunks[17]]);
    expect(fromEmbedded).toEqual([chunks[0], chunks[17]]);
  });

  it('treats re-indexing the same chunks as a no-op in OpenSearch too', async () => {
    const request = { index: INDEX, mode: 'hybrid' as const, text: 'vitamin D deficiency', vector: pseudoRandomVector('vitamin D', DIMS), limit: 10 };
    const before = await opensearch.search(request);
    await opensearch.indexChunks(INDEX, chunks);
    await opensearch.commit(INDEX);
    expect((await opensearch.stats(INDEX)).chunks).toBe(300);
    // unchanged chunks are skipped, so no deleted documents skew BM25 statistics
    expect(await opensearch.search(request)).toEqual(before);
  });

  it('fails loudly when a chunk cannot be indexed', async () => {
    const bad = { ...chunks[0], id: 'bad-date-type', metadata: { ...chunks[0].metadata, open_access: 'maybe' as unknown as boolean } };
    await expect(opensearch.indexChunks(INDEX, [bad])).rejects.toThrow(/failed to index/);
  });
});

function expectSameScores(embeddedHit: SearchHit, openSearchHit: SearchHit, where: string): void {
  if (embeddedHit.sparse === undefined) expect(openSearchHit.sparse, where).toBeUndefined();
  else {
    // Lucene's float BM25 (one-byte length norms included) is replicated, so this tolerance is only a margin
    const tolerance = 1e-5 * embeddedHit.sparse;
    expect(Math.abs((openSearchHit.sparse as number) - embeddedHit.sparse), where).toBeLessThanOrEqual(tolerance);
  }
  if (embeddedHit.dense === undefined) expect(openSearchHit.dense, where).toBeUndefined();
  else expect(openSearchHit.dense as number, where).toBeCloseTo(embeddedHit.dense, 9);
  expect(openSearchHit.score, where).toBeCloseTo(embeddedHit.score, 6);
}
