// The vector backfill's share as the search answer, /readyz, the operator's list and the console report it, and the
// OpenSearch adapter's coverage kept in the process: a commit reads it, a search answers from what is kept (no
// request once known), and a stale one is read again behind the search.
import { afterEach, describe, expect, it, vi } from "vitest";
import { vectorsText } from "../../src/http/dashboard/operatorPages.js";
import { createCoverageReader } from "../../src/retrieval/engines/opensearch/vectorPresence.js";
import type { Call } from "../../src/retrieval/engines/opensearch/transport.js";
import type { VectorCoverage } from "../../src/retrieval/port.js";
import { reportedShare, vectorsBackfilling } from "../../src/retrieval/vectorsBackfilling.js";
import { collectionVectorsOf } from "../../src/usecases/collections/manageCollections.js";

describe("the reported share", () => {
  it("rounds down, so 1 means done, and an empty index counts as whole", () => {
    expect(reportedShare({ chunks: 3, withVectors: 2 })).toBe(0.666);
    expect(reportedShare({ chunks: 10_000, withVectors: 9_999 })).toBe(0.999);
    expect(reportedShare({ chunks: 0, withVectors: 0 })).toBe(1);
  });

  it("lists only the collections still backfilling, and leaves out one whose engine cannot tell", async () => {
    const coverage: Record<string, VectorCoverage> = {
      whole: { chunks: 4, withVectors: 4 },
      half: { chunks: 4, withVectors: 2 },
    };
    const engine = {
      vectorCoverage: async (name: string) => {
        if (!coverage[name]) throw new Error("no such index");
        return coverage[name];
      },
    };
    expect(await vectorsBackfilling(engine, ["whole", "half", "gone"])).toEqual([
      { collection: "half", vectorShare: 0.5 },
    ]);
    expect(await vectorsBackfilling(engine, ["whole"])).toEqual([]);
  });

  it("the operator's list: null for sparse or unknown, else the share and whether the backfill runs", () => {
    expect(collectionVectorsOf("sparse", { chunks: 4, withVectors: 0 })).toBeNull();
    expect(collectionVectorsOf("hybrid", null)).toBeNull();
    expect(collectionVectorsOf("hybrid", { chunks: 4, withVectors: 1 })).toEqual({ share: 0.25, backfilling: true });
    expect(collectionVectorsOf("dense", { chunks: 4, withVectors: 4 })).toEqual({ share: 1, backfilling: false });
  });

  it("the console's column", () => {
    expect(vectorsText("sparse", null)).toBe("none (keywords only)");
    expect(vectorsText("hybrid", null)).toBe("not indexed yet");
    expect(vectorsText("hybrid", { share: 0.257, backfilling: true })).toBe("25.7%, backfill running");
    expect(vectorsText("hybrid", { share: 1, backfilling: false })).toBe("100%");
  });
});

describe("the OpenSearch adapter's coverage kept in the process", () => {
  afterEach(() => vi.useRealTimers());

  /** A node answering the two counts from `state`, counting the requests. */
  function node(state: VectorCoverage) {
    const requests: string[] = [];
    const call = (async (_method: string, path: string, body?: { query?: unknown }) => {
      requests.push(path);
      return { statusCode: 200, body: { count: body?.query ? state.withVectors : state.chunks } };
    }) as Call;
    return { call, requests };
  }
  const info = { binaryVectors: true };

  it("reads once, then answers a whole index without a request for 30 s", async () => {
    vi.useFakeTimers();
    const state = { chunks: 8, withVectors: 8 };
    const { call, requests } = node(state);
    const reader = createCoverageReader(call);
    expect(await reader.coverage("i", info)).toEqual({ chunks: 8, withVectors: 8 });
    expect(requests).toHaveLength(2);
    for (let k = 0; k < 20; k++) expect(await reader.partial("i", info)).toBe(false);
    vi.advanceTimersByTime(29_000);
    expect(await reader.partial("i", info)).toBe(false);
    expect(requests).toHaveLength(2);
    // stale: answered as kept, read again behind the search
    state.chunks = 10;
    vi.advanceTimersByTime(2_000);
    expect(await reader.partial("i", info)).toBe(false);
    await vi.runAllTimersAsync();
    expect(requests).toHaveLength(4);
    expect(await reader.coverage("i", info)).toEqual({ chunks: 10, withVectors: 8 });
  });

  it("a commit reads it before it returns; a partial index is read again after 2 s", async () => {
    vi.useFakeTimers();
    const state = { chunks: 8, withVectors: 8 };
    const { call, requests } = node(state);
    const reader = createCoverageReader(call);
    await reader.coverage("i", info);
    state.chunks = 12;
    await reader.refresh("i", info);
    expect(await reader.coverage("i", info)).toEqual({ chunks: 12, withVectors: 8 });
    expect(requests).toHaveLength(4);
    state.withVectors = 12;
    vi.advanceTimersByTime(2_500);
    expect(await reader.partial("i", info)).toBe(true);
    await vi.runAllTimersAsync();
    expect(await reader.partial("i", info)).toBe(false);
    expect(requests).toHaveLength(6);
    reader.forget("i");
    await reader.coverage("i", info);
    expect(requests).toHaveLength(8);
  });

  it("known: undefined until read, without waiting; then as kept, read again behind it once stale", async () => {
    vi.useFakeTimers();
    const state = { chunks: 8, withVectors: 0 };
    const { call, requests } = node(state);
    const reader = createCoverageReader(call);
    expect(reader.known("i", info)).toBeUndefined();
    expect(reader.known("i", info)).toBeUndefined();
    await vi.runAllTimersAsync();
    expect(requests).toHaveLength(2);
    expect(reader.known("i", info)).toEqual({ chunks: 8, withVectors: 0 });
    expect(requests).toHaveLength(2);
    state.withVectors = 8;
    vi.advanceTimersByTime(30_000);
    expect(reader.known("i", info)).toEqual({ chunks: 8, withVectors: 0 });
    await vi.runAllTimersAsync();
    expect(reader.known("i", info)).toEqual({ chunks: 8, withVectors: 8 });
    expect(requests).toHaveLength(4);
  });
});
