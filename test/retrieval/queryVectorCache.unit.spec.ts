// The query-vector cache's rule: a repeated text (whitespace aside) skips the model, the least recently used entry
// leaves first, and a vector handed in (an alert's stored one) counts like one embedded here.
import { describe, expect, it } from "vitest";
import { embedQueryCached, knownQueryVector, rememberQueryVector } from "../../src/retrieval/queryVectorCache.js";
import type { Embedder } from "../../src/embedding/port.js";

/** Counts the texts it embeds; each vector is the text's length, so a wrong entry shows. */
function countingEmbedder() {
  const embedded: string[] = [];
  const embedder: Embedder = {
    modelName: "counting",
    dims: 1,
    embedPassages: async (texts) => texts.map((t) => Float32Array.of(t.length)),
    embedQuery: async (text) => (embedded.push(text), Float32Array.of(text.length)),
    close: async () => undefined,
  };
  return { embedder, embedded };
}

describe("the query-vector cache", () => {
  it("embeds a text once, whitespace aside, and lets the least recently used go past its capacity", async () => {
    const { embedder, embedded } = countingEmbedder();
    await embedQueryCached(embedder, "kelp forests", 2);
    await embedQueryCached(embedder, "  kelp   forests ", 2);
    await embedQueryCached(embedder, "sea otters", 2);
    await embedQueryCached(embedder, "kelp forests", 2); // used again: "sea otters" is now the oldest
    await embedQueryCached(embedder, "urchins", 2);
    expect(embedded).toEqual(["kelp forests", "sea otters", "urchins"]);
    expect(knownQueryVector(embedder, "sea otters")).toBeUndefined();
    expect(knownQueryVector(embedder, "kelp forests")).toEqual(Float32Array.of(12));
  });

  it("keeps a vector handed in, within the same capacity, and serves it without the model", async () => {
    const { embedder, embedded } = countingEmbedder();
    rememberQueryVector(embedder, "giant kelp", Float32Array.of(42), 1);
    expect(await embedQueryCached(embedder, "giant  kelp", 1)).toEqual(Float32Array.of(42));
    rememberQueryVector(embedder, "urchins", Float32Array.of(7), 1);
    expect(knownQueryVector(embedder, "giant kelp")).toBeUndefined();
    expect(embedded).toEqual([]);
  });
});
