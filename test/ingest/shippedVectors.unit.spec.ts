// The shipped-vectors file: float16 vectors filed by text fingerprint under a header, read back as unit vectors; the
// embedder wrapper answers what the file holds and embeds only the rest; a header of another pipeline is stale.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embedding/port.js";
import {
  readShippedVectors,
  staleReason,
  vectorKey,
  withShippedVectors,
  writeShippedVectors,
  type ShippedVectorsHeader,
} from "../../src/ingest/shippedVectors.js";

const dir = mkdtempSync(join(tmpdir(), "shipped-vectors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER: Omit<ShippedVectorsHeader, "count"> = {
  embedding: "toy@fp32:000000000000",
  dims: 4,
  chunker: 2,
  pipeline: 1,
  inputTokens: 254,
};
const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (v) => v / norm);
};

/** An embedder that counts the texts it is asked to embed, and embeds a text as its length in the first axis. */
function countingEmbedder(): Embedder & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    modelName: HEADER.embedding,
    dims: 4,
    async embedPassages(texts) {
      asked.push(...texts);
      return texts.map((t) => unit([t.length + 1, 1, 0, 0]));
    },
    embedQuery: async (t) => unit([t.length + 1, 0, 1, 0]),
    close: async () => undefined,
  };
}

describe("shipped vectors", () => {
  it("round-trips vectors through float16 to within its precision, as unit vectors", async () => {
    const path = join(dir, "round-trip.bin");
    const vectors = new Map([
      [vectorKey("alpha"), unit([0.1, -0.2, 0.3, 0.9])],
      [vectorKey("beta"), unit([1e-6, 0.5, -0.5, 0.001])],
    ]);
    await writeShippedVectors(path, HEADER, vectors);
    const read = await readShippedVectors(path);
    expect(read!.header).toEqual({ ...HEADER, count: 2 });
    for (const [key, vector] of vectors) {
      const back = read!.get(key)!;
      expect(Math.hypot(...back)).toBeCloseTo(1, 6);
      for (let k = 0; k < 4; k++) expect(Math.abs(back[k]! - vector[k]!)).toBeLessThan(1e-3);
    }
    expect(read!.get(vectorKey("gamma"))).toBeUndefined();
    expect(await readShippedVectors(join(dir, "absent.bin"))).toBeNull();
  });

  it("refuses a damaged file, naming it", async () => {
    const path = join(dir, "damaged.bin");
    await writeShippedVectors(path, HEADER, new Map([[vectorKey("alpha"), unit([1, 0, 0, 0])]]));
    const { truncate } = await import("node:fs/promises");
    await truncate(path, 60);
    await expect(readShippedVectors(path)).rejects.toThrow(/damaged\.bin is truncated or damaged/);
  });

  it("answers the texts the file holds and embeds only the others, in input order", async () => {
    const path = join(dir, "answers.bin");
    const shippedVector = unit([0, 0, 0, 1]);
    await writeShippedVectors(path, HEADER, new Map([[vectorKey("held"), shippedVector]]));
    const inner = countingEmbedder();
    const shipped: number[] = [];
    const embedder = withShippedVectors(inner, (await readShippedVectors(path))!, (n) => shipped.push(n));
    const progress: number[] = [];
    const [first, second, third] = await embedder.embedPassages(["new one", "held", "other"], (done) =>
      progress.push(done),
    );
    expect(inner.asked).toEqual(["new one", "other"]);
    expect(shipped).toEqual([1]);
    expect(Array.from(second!)).toEqual(Array.from(shippedVector));
    expect(Array.from(first!)).toEqual(Array.from(unit([8, 1, 0, 0])));
    expect(Array.from(third!)).toEqual(Array.from(unit([6, 1, 0, 0])));
    expect(progress.at(-1) ?? 0).toBeLessThanOrEqual(3);
    // queries never come from the file
    expect(Array.from(await embedder.embedQuery("held"))).toEqual(Array.from(unit([5, 0, 1, 0])));
  });

  it("is stale when any part of how its vectors were made differs from the pipeline", () => {
    expect(staleReason({ ...HEADER, count: 1 }, HEADER)).toBeNull();
    expect(staleReason({ ...HEADER, count: 1 }, { ...HEADER, embedding: "toy@fp32:111111111111" })).toMatch(
      /made with embedding toy@fp32:000000000000, the pipeline now uses toy@fp32:111111111111/,
    );
    expect(staleReason({ ...HEADER, count: 1 }, { ...HEADER, chunker: 3 })).toMatch(
      /chunker 2, the pipeline now uses 3/,
    );
  });
});
