// GET /api/v1/search/collections over HTTP on the real service: every entry carries documentCount (the public SDK
// requires it), the documents each collection holds, and a meta-collection the sum of its members'.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COLLECTIONS_CONFIG } from '../../src/config.js';
import { loadCollectionCatalog, type CollectionCatalog } from '../../src/collections/catalog.js';
import { prepareCollection } from '../../src/ingest/ingestCollection.js';
import { loadRetractedDois } from '../../src/ingest/retractions.js';
import { httpClient, sliceDataRoot, startTestService, type TestService } from '../support/testService.js';

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let dataRoot: string;
let catalog: CollectionCatalog;

interface Listed {
  name: string;
  documentCount: number;
  members?: string[];
}

async function keyFor(collections?: string[]): Promise<string> {
  const org = await call('POST', '/admin/v1/organizations', { admin: svc.adminToken, body: { name: 'Catalogue lab' } });
  expect(org.status).toBe(201);
  const key = await call('POST', `/admin/v1/organizations/${org.body.id}/keys`, { admin: svc.adminToken, body: { mode: 'live', ...(collections ? { collections } : {}) } });
  expect(key.status).toBe(201);
  return key.body.key as string;
}

/** Documents with at least one chunk, as ingestion chunks the slice (exclusions included), counted by doc_id. */
async function indexedDocuments(name: string): Promise<number> {
  const collection = catalog.collections.find((candidate) => candidate.name === name)!;
  const prepared = await prepareCollection({ collection, dataRoot, tokenizer: svc.runtime.embedder.tokenizer, retracted: await loadRetractedDois(dataRoot) });
  return new Set(prepared.records.map((record) => record.metadata.doc_id)).size;
}

beforeAll(async () => {
  dataRoot = await sliceDataRoot();
  svc = await startTestService({ dataRoot });
  call = httpClient(svc.baseUrl);
  catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
}, 600_000);

afterAll(async () => {
  await svc?.close();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe('GET /api/v1/search/collections', () => {
  it('gives every plain collection the number of documents it holds, and a meta-collection the sum over its members', async () => {
    const res = await call('GET', '/api/v1/search/collections', { key: await keyFor() });
    expect(res.status).toBe(200);
    const listed = res.body.collections as Listed[];
    expect(listed.map((entry) => entry.name)).toEqual([...catalog.collections, ...catalog.metaCollections].map((entry) => entry.name));
    for (const entry of listed) expect(Number.isInteger(entry.documentCount), entry.name).toBe(true);

    // every SciFact line of the slice is a document with an abstract
    const scifactLines = readFileSync(join(dataRoot, 'scifact', 'corpus.jsonl'), 'utf8').split('\n').filter((line) => line.trim() !== '').length;
    const count = (name: string) => listed.find((entry) => entry.name === name)!.documentCount;
    expect(count('scifact')).toBe(scifactLines);

    const expected = new Map<string, number>();
    for (const collection of catalog.collections) expected.set(collection.name, await indexedDocuments(collection.name));
    for (const collection of catalog.collections) expect(count(collection.name), collection.name).toBe(expected.get(collection.name));
    // works without an abstract are not documents of the OpenAlex collections
    expect(count('openalex-synergy')).toBeLessThan(scifactLines);
    expect(count('openalex-synergy')).toBeGreaterThan(0);

    for (const meta of catalog.metaCollections) {
      const sum = meta.members.reduce((total, member) => total + expected.get(member)!, 0);
      expect(count(meta.name), meta.name).toBe(sum);
      expect(listed.find((entry) => entry.name === meta.name)!.members).toHaveLength(meta.members.length);
    }
  });

  it('counts the same for a key scoped to a meta-collection, which sees only that entry', async () => {
    const meta = catalog.metaCollections[0];
    const [all, scoped] = await Promise.all([keyFor(), keyFor([meta.name])]);
    const full = (await call('GET', '/api/v1/search/collections', { key: all })).body.collections as Listed[];
    const res = await call('GET', '/api/v1/search/collections', { key: scoped });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-query-cost')).toBe('0.000000');
    expect(res.body).toEqual({ collections: [expect.objectContaining({ name: meta.name, documentCount: full.find((entry) => entry.name === meta.name)!.documentCount })], count: 1 });
  });
});
