// Price per 1000 tokens for an organization and a physical collection: the organization's override, else the catalogue's.
import type { PlainCollection } from '../collections/catalog.js';
import { pricePer1000Micros } from '../collections/catalog.js';

export interface PriceBook {
  /** micro-credits per 1000 tokens */
  priceFor(orgId: string, collection: PlainCollection): bigint;
}

/** The catalogue's prices, for callers without an organization at hand. */
export function createPriceBook(overrides: ReadonlyMap<string, ReadonlyMap<string, bigint>> = new Map()): PriceBook {
  return {
    priceFor(orgId, collection) {
      return overrides.get(orgId)?.get(collection.name) ?? pricePer1000Micros(collection);
    },
  };
}

/**
 * The price book of one request: the organization's overrides as loaded with it (from the price_overrides projection,
 * so every API process sees an operator's change on the next request).
 */
export function priceBookFor(org: { id: string; priceOverrides: ReadonlyMap<string, bigint> }): PriceBook {
  return createPriceBook(new Map([[org.id, org.priceOverrides]]));
}
