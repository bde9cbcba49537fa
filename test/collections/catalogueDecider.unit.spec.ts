// The catalogue's rules, given the events so far, when a command, then the events (or the refusal): defining,
// changing and retiring collections and meta-collections.
import { describe, expect, it } from 'vitest';
import Router from '@koa/router';
import { decideCatalogue, emptyCatalogue, evolveCatalogue, RESERVED_COLLECTION_NAMES, type CatalogueCommand } from '../../src/domain/collectionCatalogue.js';
import type { CollectionDefinition, DomainEvent } from '../../src/domain/events.js';
import { Rejection } from '../../src/domain/rejection.js';
import { searchRoutes } from '../../src/http/routes/searchRoutes.js';

const plain = (name: string, extra: Partial<CollectionDefinition> = {}): CollectionDefinition => ({
  name,
  displayName: name.toUpperCase(),
  description: null,
  kind: 'scholarly',
  retrieval: 'sparse',
  pricePer1000: '0.050',
  openAccessOnly: false,
  scanFilterable: false,
  excludeRetracted: true,
  source: { reader: 'jsonl', files: [`${name}.jsonl`] },
  ...extra,
});

const defined = (name: string): DomainEvent => ({ type: 'CollectionDefined', data: { collection: plain(name), seeded: false } });

function given(events: DomainEvent[]) {
  const state = emptyCatalogue();
  events.forEach((e, i) => {
    evolveCatalogue(state, e);
    state.version = i + 1;
  });
  return {
    when: (command: CatalogueCommand) => {
      try {
        return { events: decideCatalogue(state, command), refusal: undefined };
      } catch (err) {
        if (!(err instanceof Rejection)) throw err;
        return { events: undefined, refusal: err };
      }
    },
  };
}

describe('the catalogue decider', () => {
  it('seeds an empty catalogue once, with the file\'s collections and meta-collections', () => {
    const seed: CatalogueCommand = { type: 'SeedCatalogue', collections: [plain('a'), plain('b')], metaCollections: [{ name: 'ab', displayName: 'AB', description: null, members: ['a', 'b'] }] };
    expect(given([]).when(seed).events).toEqual([
      { type: 'CollectionDefined', data: { collection: plain('a'), seeded: true } },
      { type: 'CollectionDefined', data: { collection: plain('b'), seeded: true } },
      { type: 'MetaCollectionDefined', data: { name: 'ab', displayName: 'AB', description: null, members: ['a', 'b'] } },
    ]);
    expect(given([defined('a')]).when(seed).events).toEqual([]);
  });

  it('defines a collection under a free name, and refuses a taken, retired or reserved one', () => {
    expect(given([defined('a')]).when({ type: 'DefineCollection', definition: plain('b') }).events).toEqual([{ type: 'CollectionDefined', data: { collection: plain('b'), seeded: false } }]);
    const taken = given([defined('a')]).when({ type: 'DefineCollection', definition: plain('A') });
    expect(taken.refusal?.code).toBe('CONFLICT');
    expect(taken.refusal?.message).toContain('"a"');
    const retired = given([defined('a'), defined('b'), { type: 'CollectionRetired', data: { name: 'a' } }]).when({ type: 'DefineCollection', definition: plain('a') });
    expect(retired.refusal?.code).toBe('CONFLICT');
    expect(retired.refusal?.message).toMatch(/retired/);
    const reserved = given([defined('a')]).when({ type: 'DefineCollection', definition: plain('query') });
    expect(reserved.refusal?.code).toBe('VALIDATION_ERROR');
    expect(reserved.refusal?.message).toContain('/api/v1/search/query');
  });

  it('reserves every fixed route of the search API', () => {
    const router: Router = searchRoutes({} as never);
    const fixed = new Set(router.stack.map((layer) => String(layer.path).replace(/^\/api\/v1\/search\/?/, '').split('/')[0]!).filter((segment) => segment !== '' && !segment.startsWith(':')));
    expect([...fixed].sort()).toEqual([...RESERVED_COLLECTION_NAMES].sort());
  });

  it('retires a collection no meta-collection lists, never the last one, and 404s what is unknown or retired', () => {
    const history = [defined('a'), defined('b'), defined('c'), { type: 'MetaCollectionDefined', data: { name: 'ab', displayName: 'AB', description: null, members: ['a', 'b'] } } as DomainEvent];
    expect(given(history).when({ type: 'RetireCollection', name: 'C' }).events).toEqual([{ type: 'CollectionRetired', data: { name: 'c' } }]);
    const listed = given(history).when({ type: 'RetireCollection', name: 'a' });
    expect(listed.refusal?.code).toBe('CONFLICT');
    expect(listed.refusal?.details).toEqual({ metaCollections: ['ab'] });
    expect(given([defined('a')]).when({ type: 'RetireCollection', name: 'a' }).refusal?.code).toBe('CONFLICT');
    expect(given(history).when({ type: 'RetireCollection', name: 'zzz' }).refusal?.code).toBe('COLLECTION_NOT_FOUND');
    expect(given([...history, { type: 'CollectionRetired', data: { name: 'c' } }]).when({ type: 'RetireCollection', name: 'c' }).refusal?.code).toBe('COLLECTION_NOT_FOUND');
    expect(given(history).when({ type: 'RetireCollection', name: 'ab' }).refusal?.code).toBe('VALIDATION_ERROR');
  });

  it('changes names, description and price in place, and records nothing when nothing changes', () => {
    expect(given([defined('a')]).when({ type: 'ChangeCollection', name: 'A', change: { pricePer1000: '0.100', description: 'new' } }).events).toEqual([
      { type: 'CollectionChanged', data: { collection: { ...plain('a'), pricePer1000: '0.100', description: 'new' } } },
    ]);
    expect(given([defined('a')]).when({ type: 'ChangeCollection', name: 'a', change: { pricePer1000: '0.050' } }).events).toEqual([]);
  });

  it('defines and changes meta-collections over live plain collections only', () => {
    const history = [defined('a'), defined('b'), defined('c'), { type: 'CollectionRetired', data: { name: 'c' } } as DomainEvent];
    const meta = { name: 'ab', displayName: 'AB', description: null, members: ['A', 'b'] };
    expect(given(history).when({ type: 'DefineMetaCollection', definition: meta }).events).toEqual([{ type: 'MetaCollectionDefined', data: { ...meta, members: ['a', 'b'] } }]);
    const changed = [...history, { type: 'MetaCollectionDefined', data: { ...meta, members: ['a', 'b'] } } as DomainEvent];
    expect(given(changed).when({ type: 'DefineMetaCollection', definition: { ...meta, members: ['a', 'b'] } }).events).toEqual([]);
    expect(given(changed).when({ type: 'DefineMetaCollection', definition: { ...meta, displayName: 'A and B' } }).events).toHaveLength(1);
    expect(given(history).when({ type: 'DefineMetaCollection', definition: { ...meta, members: ['a', 'c'] } }).refusal?.message).toMatch(/"c" was retired/);
    expect(given(history).when({ type: 'DefineMetaCollection', definition: { ...meta, members: ['a', 'a'] } }).refusal?.code).toBe('VALIDATION_ERROR');
    expect(given(history).when({ type: 'DefineMetaCollection', definition: { ...meta, members: ['a'] } }).refusal?.code).toBe('VALIDATION_ERROR');
    expect(given(history).when({ type: 'DefineMetaCollection', definition: { ...meta, name: 'a' } }).refusal?.code).toBe('CONFLICT');
    expect(given(changed).when({ type: 'DefineMetaCollection', definition: { ...meta, members: ['ab', 'a'] } }).refusal?.message).toMatch(/meta-collection/);
  });
});
