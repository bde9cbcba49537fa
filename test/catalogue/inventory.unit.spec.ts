// The collection inventory: how documents are grouped and ordered.
import { describe, expect, it } from 'vitest';
import { InventoryTally, journalKey, MAX_INVENTORY_ENTRIES } from '../../src/catalogue/inventory.js';

describe('InventoryTally', () => {
  it('groups documents by sorted ISSNs, title and publisher, most documents first, then by title (untitled last)', () => {
    const tally = new InventoryTally();
    tally.add({ issn: ['2222-2222', '1111-1111'], journal: 'Cell', publisher: 'Elsevier' });
    tally.add({ issn: ['1111-1111', '2222-2222', '1111-1111'], journal: 'Cell', publisher: 'Elsevier' });
    tally.add({ issn: ['1111-1111'], journal: 'Cell', publisher: 'Elsevier' });
    tally.add({ journal: 'Untitled Letters' });
    tally.add({ journal: '  ', publisher: '' });
    tally.add({});
    const inventory = tally.inventory('papers', new Date('2026-01-02T03:04:05Z'));
    expect(inventory).toEqual({
      collection: 'papers',
      documentCount: 6,
      entries: [
        { issns: ['1111-1111', '2222-2222'], journal: 'Cell', publisher: 'Elsevier', documents: 2 },
        { issns: [], journal: null, publisher: null, documents: 2 },
        { issns: ['1111-1111'], journal: 'Cell', publisher: 'Elsevier', documents: 1 },
        { issns: [], journal: 'Untitled Letters', publisher: null, documents: 1 },
      ],
      truncated: false,
      builtAt: '2026-01-02T03:04:05.000Z',
    });
  });

  it('gives the same inventory whatever order the documents come in', () => {
    const documents = Array.from({ length: 200 }, (_, n) => ({ issn: [`000${n % 7}-000${n % 3}`], journal: `Journal ${n % 5}`, publisher: n % 2 ? 'A' : null }));
    const forward = new InventoryTally();
    const backward = new InventoryTally();
    documents.forEach((document) => forward.add(document));
    [...documents].reverse().forEach((document) => backward.add(document));
    const at = new Date();
    expect(backward.inventory('c', at)).toEqual(forward.inventory('c', at));
    expect(forward.inventory('c', at).entries.reduce((sum, entry) => sum + entry.documents, 0)).toBe(200);
  });

  it('keeps the largest entries past the cap, says so and still counts every document', () => {
    const tally = new InventoryTally();
    for (let n = 0; n <= MAX_INVENTORY_ENTRIES; n++) tally.add({ journal: `Journal ${n}` });
    tally.add({ journal: 'Journal 7' });
    const inventory = tally.inventory('big');
    expect(inventory.truncated).toBe(true);
    expect(inventory.entries).toHaveLength(MAX_INVENTORY_ENTRIES);
    expect(inventory.documentCount).toBe(MAX_INVENTORY_ENTRIES + 2);
    expect(inventory.entries[0]).toMatchObject({ journal: 'Journal 7', documents: 2 });
  });

  it('keys a journal by its smallest ISSN, else its lower-cased title', () => {
    expect(journalKey({ issn: ['2222-2222', '1111-1111'], journal: 'Cell' })).toBe('1111-1111');
    expect(journalKey({ issn: [], journal: 'The Lancet' })).toBe('the lancet');
    expect(journalKey({ issn: null, journal: ' ' })).toBeNull();
    expect(journalKey({})).toBeNull();
  });
});
