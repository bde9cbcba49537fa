// Sandbox keys get deterministic synthetic results: the live response's shape, no licensed content, no cost; the use
// cases without sandbox behaviour refuse them here.
import { createHash } from 'node:crypto';
import type { CachedRow } from './queryCache.js';
import { teaserOf } from './queryCache.js';
import type { AuthContext } from '../auth/context.js';
import { Rejection } from '../../domain/rejection.js';

/**
 * 403 SANDBOX_UNSUPPORTED_ENDPOINT for a sandbox key: called first by each use case that has no sandbox behaviour
 * (preview, unlock, tool calls), so both doors into a use case (REST, MCP) refuse alike.
 */
export function refuseSandbox(auth: AuthContext, useCase: string): void {
  if (auth.billingMode !== 'sandbox') return;
  throw new Rejection('SANDBOX_UNSUPPORTED_ENDPOINT', `${useCase} has no sandbox behaviour (sandbox keys support collections and their journals, query, {collection}, assisted, results, journal requests and quota); use a live key`);
}

const TOPICS = ['cohort study', 'randomized trial', 'systematic review', 'case series', 'mechanistic study'];

export function syntheticRows(query: string, collections: string[], limit: number): CachedRow[] {
  const n = Math.min(limit, 3 * collections.length, 10);
  const rows: CachedRow[] = [];
  for (let i = 0; i < n; i++) {
    const collection = collections[i % collections.length]!;
    const digest = createHash('sha256').update(`${collection}\u0000${query}\u0000${i}`).digest('hex');
    const topic = TOPICS[parseInt(digest.slice(0, 2), 16) % TOPICS.length]!;
    const text = `[SYNTHETIC] This sandbox result ${i + 1} stands in for a passage about "${query}" from a ${topic}. It contains no licensed content and is generated from the query so the same request always gives the same result.`;
    rows.push({
      id: `syn_${digest.slice(0, 20)}`,
      collection,
      physical: collection,
      text,
      teaser: teaserOf(text),
      metadata: {
        chunk_index: 0,
        doc_id: `syn_doc_${digest.slice(20, 32)}`,
        title: `Synthetic ${topic} on ${query.slice(0, 60)}`,
        authors: ['Sandbox A', 'Sandbox B'],
        doi: null,
        journal: 'Sandbox Journal of Synthetic Results',
        publication_date: `20${10 + (parseInt(digest.slice(2, 4), 16) % 15)}-01-01`,
        article_type: 'other',
        synthetic: true,
      },
      relevance: Math.round((0.95 - i * 0.05) * 1000) / 1000,
      tokens: 0,
      costMicros: '0',
      pricePer1000Micros: '0',
      figureCount: 0,
    });
  }
  return rows;
}
