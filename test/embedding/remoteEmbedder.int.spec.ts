// The remote embedding port against a scripted stand-in server (faults only; it answers with the service's model):
// both protocols give the in-process vectors; 429 (Retry-After honoured), 500, 503 and a hung request are retried and
// nothing is lost; a server killed mid-run is waited for and every text gets its own vector once, in order; a server
// down past the retry window fails the call; a wrong width, another model's name, or another model's vectors at the
// same width are refused naming the fix. Several servers (EMBEDDING_URL listing them): the batches spread over them,
// a server lost mid-run leaves its batches to the others and is tried ever more rarely, and each server is probed, the
// one that differs named.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/app/config.js";
import { openEmbeddingServer } from "../../src/app/composition.js";
import { embeddingModelManifestPath } from "../../src/embedding/modelManifest.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import {
  createRemoteEmbedder,
  EmbeddingServerMismatchError,
  type RemoteEmbedderOptions,
} from "../../src/embedding/remoteEmbedder.js";
import { cosineOfUnit, embeddingServerUrl } from "../../src/embedding/remoteProtocol.js";
import { cacheDirFrom } from "../../src/app/config.js";
import { startEmbeddingStandIn, type EmbeddingStandIn } from "../support/embeddingStandIn.js";

let inProcess: OnnxEmbedder;
let standIn: EmbeddingStandIn;
const started: EmbeddingStandIn[] = [];

const TEXTS = Array.from(
  { length: 48 },
  (_, i) => `Passage ${i}: the effect of intervention ${i % 7} on outcome ${i % 5} in a cohort of ${10 + i} patients.`,
);

beforeAll(async () => {
  inProcess = await createOnnxEmbedder({ manifest: embeddingModelManifestPath(cacheDirFrom(process.env)) });
  standIn = await startEmbeddingStandIn();
  started.push(standIn);
}, 120_000);

afterAll(async () => {
  for (const s of started) await s.close();
  await inProcess?.close();
});

const remote = (over: Partial<RemoteEmbedderOptions> = {}) =>
  createRemoteEmbedder({
    urls: [embeddingServerUrl(standIn.url)],
    protocol: "openai",
    model: "BAAI/bge-small-en-v1.5",
    path: { modelName: inProcess.modelName, dims: inProcess.dims },
    batchSize: 4,
    concurrency: 2,
    timeoutMs: 5000,
    retryForMs: 30_000,
    retry: { baseMs: 50, maxMs: 500, retryAfterCapMs: 5000 },
    ...over,
  });

async function expectInProcessVectors(texts: string[], vectors: Float32Array[]): Promise<void> {
  const expected = await inProcess.embedPassages(texts);
  expect(vectors).toHaveLength(texts.length);
  const cosines = vectors.map((v, i) => cosineOfUnit(v, expected[i]!));
  expect(Math.min(...cosines)).toBeGreaterThan(0.9999);
}

describe("a server that answers", () => {
  it.each(["openai", "tei"] as const)("gives the in-process vectors over %s, in the texts' order", async (protocol) => {
    const embedder = remote({ protocol });
    await expectInProcessVectors(TEXTS, await embedder.embedPassages(TEXTS));
  });

  it("is accepted by the probe when the service opens it (EMBEDDING_URL)", async () => {
    const config = loadConfig({
      DATA_DIR: "/nonexistent/litsearch",
      ADMIN_TOKEN: "remote-embedder-token-0123456789",
      EMBEDDING_URL: standIn.url,
      EMBEDDING_MODEL: "BAAI/bge-small-en-v1.5",
      LITSEARCH_CACHE: cacheDirFrom(process.env),
    });
    const embedder = await openEmbeddingServer(config, config.embeddingServer!);
    expect(embedder.modelName).toBe(inProcess.modelName);
    expect(embedder.servedBy).toContain("BAAI/bge-small-en-v1.5");
    await expectInProcessVectors(TEXTS.slice(0, 3), await embedder.embedPassages(TEXTS.slice(0, 3)));
  });
});

describe("faults", () => {
  it(
    "retries 429 (after its Retry-After), 500, 503 and a hung request, losing and doubling nothing",
    { timeout: 120_000 },
    async () => {
      const retries: string[] = [];
      const embedder = remote({ timeoutMs: 5000, onRetry: (reason) => retries.push(reason) });
      const before = await standIn.stats();
      await standIn.queueFaults(["429", "500", "hang", "503"]);
      const t0 = Date.now();
      const vectors = await embedder.embedPassages(TEXTS.slice(0, 16));
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
      await expectInProcessVectors(TEXTS.slice(0, 16), vectors);
      expect(new Set(retries.map((r) => r.slice(0, 8)))).toEqual(
        new Set(["HTTP 429", "HTTP 500", "HTTP 503", "no answe"]),
      );
      const after = await standIn.stats();
      // four batches and the four faults (more only where a loaded machine made a batch outlast the timeout)
      expect(after.requests - before.requests).toBeGreaterThanOrEqual(4 + 4);
      expect(after.texts - before.texts).toBeGreaterThanOrEqual(16);
    },
  );

  it("waits for a server killed mid-run and gives every text its own vector once", async () => {
    const restarts: Promise<void>[] = [];
    let killed = false;
    const embedder = remote({ batchSize: 2 });
    const vectors = await embedder.embedPassages(TEXTS, (done) => {
      if (done >= 10 && !killed) {
        killed = true;
        restarts.push(
          (async () => {
            await standIn.kill();
            await new Promise((r) => setTimeout(r, 1500));
            await standIn.restart();
          })(),
        );
      }
    });
    await Promise.all(restarts);
    expect(killed).toBe(true);
    await expectInProcessVectors(TEXTS, vectors);
  }, 120_000);

  it("fails with the server's last answer once the retry window is spent", async () => {
    await standIn.queueFaults(["500", "500", "500", "500", "500", "500", "500", "500"]);
    const embedder = remote({ retryForMs: 600 });
    await expect(embedder.embedPassages(TEXTS.slice(0, 1))).rejects.toSatisfy(
      (err) => err instanceof Error && err.name === "EmbeddingServerUnavailableError" && /HTTP 500/.test(err.message),
    );
    await standIn.queueFaults([]);
  });
});

describe("a server that embeds otherwise", () => {
  const openWith = async (url: string) => {
    const config = loadConfig({
      DATA_DIR: "/nonexistent/litsearch",
      ADMIN_TOKEN: "remote-embedder-token-0123456789",
      EMBEDDING_URL: url,
      EMBEDDING_MODEL: "BAAI/bge-small-en-v1.5",
      LITSEARCH_CACHE: cacheDirFrom(process.env),
    });
    return openEmbeddingServer(config, config.embeddingServer!);
  };

  it("is refused for a wrong width, naming the fix", async () => {
    await standIn.queueFaults(["dims"]);
    await expect(openWith(standIn.url)).rejects.toSatisfy(
      (err) =>
        err instanceof EmbeddingServerMismatchError &&
        err.message.includes("383 dimensions, the index's 384") &&
        err.message.includes("unset EMBEDDING_URL"),
    );
  });

  it("is refused when it names another model than EMBEDDING_MODEL", async () => {
    await standIn.queueFaults(["model"]);
    await expect(openWith(standIn.url)).rejects.toThrow(/answered with model some-other-model/);
  });

  it("is refused when its vectors of the probe texts are another model's, at the same width", async () => {
    const other = await startEmbeddingStandIn({ weights: "other" });
    started.push(other);
    await expect(openWith(other.url)).rejects.toSatisfy(
      (err) =>
        err instanceof EmbeddingServerMismatchError && /at cosine 0\.\d+ to the in-process one/.test(err.message),
    );
  });
});

describe("several servers", () => {
  let second: EmbeddingStandIn;
  beforeAll(async () => {
    second = await startEmbeddingStandIn();
    started.push(second);
  }, 120_000);

  const both = (over: Partial<RemoteEmbedderOptions> = {}) =>
    remote({ urls: [embeddingServerUrl(standIn.url), embeddingServerUrl(second.url)], ...over });

  it("spreads the batches over every server, each text embedded once, in order", async () => {
    const [a, b] = [await standIn.stats(), await second.stats()];
    const embedder = both({ batchSize: 2, concurrency: 1 });
    expect(embedder.servers).toEqual([new URL(standIn.url).origin, new URL(second.url).origin]);
    await expectInProcessVectors(TEXTS, await embedder.embedPassages(TEXTS));
    const [a2, b2] = [await standIn.stats(), await second.stats()];
    // one request in flight to each: both work, and together they embed each text once
    expect(a2.texts - a.texts).toBeGreaterThan(0);
    expect(b2.texts - b.texts).toBeGreaterThan(0);
    expect(a2.texts - a.texts + (b2.texts - b.texts)).toBe(TEXTS.length);
  });

  it("sends a lost server's batches to the other within the retry window, trying it ever more rarely", async () => {
    await second.kill();
    try {
      const retries: string[] = [];
      const before = await standIn.stats();
      const retry = { baseMs: 50, maxMs: 5000 };
      // a window far shorter than a restart: the batches must reach the server still up
      const embedder = both({ batchSize: 2, concurrency: 1, retryForMs: 5000, retry, onRetry: (r) => retries.push(r) });
      const start = Date.now();
      // several runs in a row, as ingestion's batches are: the lost server's record outlasts one call
      for (let run = 0; run < 3; run++) await expectInProcessVectors(TEXTS, await embedder.embedPassages(TEXTS));
      const elapsed = Date.now() - start;
      expect(retries.every((r) => r.includes(new URL(second.url).origin))).toBe(true);
      expect((await standIn.stats()).texts - before.texts).toBe(3 * TEXTS.length);
      // one batch at a time a server: after the first failure the lost server meets a batch only at the end of a rest,
      // and each rest is at least half its wait, which doubles with the failures in a row
      let mostFailures = 1;
      for (let rests = 0; (rests += Math.min(retry.maxMs, retry.baseMs * 2 ** (mostFailures - 1)) / 2) <= elapsed;)
        mostFailures++;
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.length, `${elapsed} ms`).toBeLessThanOrEqual(mostFailures);
    } finally {
      await second.restart();
    }
  });

  it("probes every server when the service opens them, and refuses one that embeds otherwise, naming it", async () => {
    const other = await startEmbeddingStandIn({ weights: "other" });
    started.push(other);
    const open = (urls: string) => {
      const config = loadConfig({
        DATA_DIR: "/nonexistent/litsearch",
        ADMIN_TOKEN: "remote-embedder-token-0123456789",
        EMBEDDING_URL: urls,
        EMBEDDING_MODEL: "BAAI/bge-small-en-v1.5",
        LITSEARCH_CACHE: cacheDirFrom(process.env),
      });
      return openEmbeddingServer(config, config.embeddingServer!);
    };
    const opened = await open(`${standIn.url}, ${second.url}`);
    expect(opened.servers).toHaveLength(2);
    expect(opened.servedBy).toContain(new URL(second.url).origin);
    await expect(open(`${standIn.url},${other.url}`)).rejects.toSatisfy(
      (err) =>
        err instanceof EmbeddingServerMismatchError &&
        err.message.includes(`the server at ${new URL(other.url).origin}`) &&
        /at cosine 0\.\d+ to the in-process one/.test(err.message),
    );
  });
});
