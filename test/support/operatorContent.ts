// Operator content for end-to-end tests, as an operator writes it: JSON-lines files under the data root, and a
// collections file (COLLECTIONS_CONFIG) defining plain collections over them.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CollectionDefinition, MetaCollectionDefinition } from "../../src/domain/events.js";
import { tempDirs } from "./tempDirs.js";

// registered when a test file loads this module (int and e2e files each load it afresh): the collections files'
// folders go after the file's tests
const tempDir = tempDirs();

export const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

/** Writes `rows` as JSON lines to `file` under `dataRoot`. */
export function writeJsonl(dataRoot: string, file: string, rows: unknown[]): void {
  writeFileSync(join(dataRoot, file), jsonl(rows));
}

/** A collection as the collections file lists it (excludeRetracted may be left to its default). */
export type CollectionEntry = Omit<CollectionDefinition, "excludeRetracted"> & { excludeRetracted?: boolean };

/**
 * A plain collection read by `reader` from `files`: a scholarly hybrid collection, scan-filterable, unless `extra` says
 * otherwise.
 */
export function plainCollection(
  name: string,
  reader: string,
  files: string[],
  extra: Partial<CollectionEntry> = {},
): CollectionEntry {
  return {
    name,
    displayName: name,
    description: null,
    kind: "scholarly",
    retrieval: "hybrid",
    pricePer1000: "0.010",
    openAccessOnly: false,
    scanFilterable: true,
    source: { reader, files },
    ...extra,
  };
}

/** The OpenAlex works of the test slice (sliceDataRoot) as one sparse collection. */
export const OPENALEX_SLICE = plainCollection(
  "openalex-synergy",
  "openalex",
  ["articles/openalex_works.synergy.jsonl.gz"],
  {
    displayName: "OpenAlex works",
    description: "slice",
    retrieval: "sparse",
    pricePer1000: "0.050",
    scanFilterable: false,
  },
);

/** Writes a collections file in a fresh temporary folder (removed after the test file) and returns its path. */
export function writeCollectionsConfig(
  collections: CollectionEntry[],
  metaCollections: MetaCollectionDefinition[] = [],
): string {
  const path = join(tempDir("collections-"), "collections.json");
  writeFileSync(path, JSON.stringify({ collections, metaCollections }));
  return path;
}
