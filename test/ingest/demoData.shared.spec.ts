// The demo data shipped in the repository (demo-data/, scripts/demo-data.ts) reads as the public originals it was
// compacted from (../shared/data, beside the clone where the workplace and CI put it): every demo collection's reader
// yields the same documents from both, and the retraction lists the same notices. The shared tier
// (test/setup/sharedTier.ts): it runs only where ../shared exists, and fails when the originals are missing.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_COLLECTIONS_CONFIG, DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { readCollectionDocuments } from "../../src/ingest/readCollection.js";
import { loadUpdateLists } from "../../src/ingest/retractions.js";
import type { SourceItem } from "../../src/ingest/sourceDocument.js";
import { SHARED_ROOT } from "../setup/sharedTier.js";

const ORIGINALS = join(SHARED_ROOT, "data");

async function documents(
  collection: Parameters<typeof readCollectionDocuments>[0],
  dataRoot: string,
): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of readCollectionDocuments(collection, dataRoot)) items.push(item);
  return items;
}

describe("the shipped demo data", () => {
  it("is read by every demo collection reader as the originals are", async () => {
    expect(existsSync(ORIGINALS), `the public originals are expected at ${ORIGINALS}`).toBe(true);
    const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
    for (const collection of catalog.collections) {
      const [shipped, original] = [
        await documents(collection, DEFAULT_DATA_ROOT),
        await documents(collection, ORIGINALS),
      ];
      expect(shipped.length, collection.name).toBeGreaterThan(500);
      expect(shipped, collection.name).toEqual(original);
    }
  }, 300_000);

  it("holds the same retraction notices", async () => {
    const [shipped, original] = [
      (await loadUpdateLists(DEFAULT_DATA_ROOT)).retracted,
      (await loadUpdateLists(ORIGINALS)).retracted,
    ];
    expect(shipped.size).toBeGreaterThan(4000);
    expect(shipped).toEqual(original);
  });
});
