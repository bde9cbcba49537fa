// Price per 1000 tokens for an organization and a physical collection (collection price unless overridden).
import type { PlainCollection } from '../collections/catalog.js';
import { pricePer1000Micros } from '../collections/catalog.js';

export interface PriceBook {
  /** micro-credits per 1000 tokens */
  priceFor(orgId: string, collection: PlainCollection): bigint;
}

export function createPriceBook(overrides: ReadonlyMap<string, ReadonlyMap<string, bigint>> = new Map()): PriceBook {
  return {
    priceFor(orgId, collection) {
      return overrides.get(orgId)?.get(collection.name) ?? pricePer1000Micros(collection);
    },
  };
}
