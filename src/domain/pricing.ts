// Price per 1000 tokens for an organization and a physical collection: the organization's override, else the
// catalogue's.
import type { PlainCollection } from "./collectionDefinitions.js";
import { pricePer1000Micros } from "./collectionDefinitions.js";

/**
 * Micro-credits per 1000 tokens. The overrides come with the organization as loaded for the request (from the
 * price_overrides projection), so every API process sees an operator's change on the next request.
 */
export function pricePer1000For(
  org: { priceOverrides: ReadonlyMap<string, bigint> },
  collection: PlainCollection,
): bigint {
  return org.priceOverrides.get(collection.name) ?? pricePer1000Micros(collection);
}
