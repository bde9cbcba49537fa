// A plain collection of OpenAlex works, sparse and excluding retracted works, as the filter planner's tests define it.
import type { PlainCollection } from "../../src/domain/collectionDefinitions.js";

/** The collection "works" read from `files` (paths under the data root). */
export function openAlexWorksCollection(files: string[]): PlainCollection {
  return {
    type: "plain",
    name: "works",
    displayName: "Works",
    description: null,
    kind: "scholarly",
    retrieval: "sparse",
    pricePer1000: "0.010",
    openAccessOnly: false,
    scanFilterable: false,
    excludeRetracted: true,
    source: { reader: "openalex", files },
  };
}
