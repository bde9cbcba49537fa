// The embedding servers' wire: EMBEDDING_URL's checks, the endpoint and body of each protocol, the reading of their
// answers (order, width, finite numbers, normalization), and the rules of the remote port built on them: the
// concurrency a throttling server gets, the server a batch goes to when there are several, and the probe comparison
// that refuses another embedding path.
import { describe, expect, it } from "vitest";
import {
  embeddingEndpoint,
  embeddingRequestBody,
  embeddingServerUrl,
  embeddingServerUrls,
  parseEmbeddingAnswer,
} from "../../src/embedding/remoteProtocol.js";
import {
  nextConcurrency,
  pickServer,
  probeDisagreement,
  serverHealthAfter,
  type ServerHealth,
} from "../../src/embedding/remoteEmbedder.js";

const unit = (...xs: number[]) => {
  const norm = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / norm);
};

describe("embeddingServerUrl", () => {
  it("takes http and https base addresses", () => {
    expect(embeddingServerUrl("http://127.0.0.1:8080").href).toBe("http://127.0.0.1:8080/");
    expect(embeddingServerUrl("https://inference.example.org/v1").pathname).toBe("/v1");
  });
  it("refuses other schemes, credentials, queries and what is not a URL", () => {
    expect(() => embeddingServerUrl("file:///etc/passwd")).toThrow(/http\(s\) address, got the file scheme/);
    expect(() => embeddingServerUrl("ftp://host/")).toThrow(/ftp scheme/);
    expect(() => embeddingServerUrl("http://user:secret@host/")).toThrow(/EMBEDDING_API_KEY/);
    expect(() => embeddingServerUrl("http://host/?x=1")).toThrow(/without \? or #/);
    expect(() => embeddingServerUrl("localhost:8080")).toThrow(/http\(s\)/);
    expect(() => embeddingServerUrl("not a url")).toThrow(/http\(s\) address such as/);
  });
});

describe("embeddingServerUrls", () => {
  it("takes one address, or several separated by commas, spaces around them ignored", () => {
    expect(embeddingServerUrls("http://127.0.0.1:8080").map((u) => u.href)).toEqual(["http://127.0.0.1:8080/"]);
    expect(embeddingServerUrls("http://a:1, https://b.example.org/v1").map((u) => u.href)).toEqual([
      "http://a:1/",
      "https://b.example.org/v1",
    ]);
  });
  it("refuses an empty entry, an address named twice, too many, and any address one alone would refuse", () => {
    expect(() => embeddingServerUrls("http://a:1,,http://b:2")).toThrow(/address 2 of 3 is empty/);
    // without echoing the list, which may hold an address refused for its credentials
    expect(() => embeddingServerUrls("http://u:secret@a:1,")).toThrow(/^(?!.*secret).*address 2 of 2 is empty/);
    expect(() => embeddingServerUrls("http://a:1, http://a:1/")).toThrow(/names http:\/\/a:1\/ twice/);
    expect(() => embeddingServerUrls(Array.from({ length: 17 }, (_, i) => `http://h${i}:1`).join(","))).toThrow(
      /17 servers; at most 16/,
    );
    expect(() => embeddingServerUrls("http://a:1,file:///etc/passwd")).toThrow(/file scheme/);
  });
});

describe("embeddingEndpoint", () => {
  it("posts OpenAI-compatible batches to /v1/embeddings, once, and TEI batches to /embed", () => {
    expect(embeddingEndpoint(new URL("http://h:7997"), "openai")).toBe("http://h:7997/v1/embeddings");
    expect(embeddingEndpoint(new URL("http://h:7997/v1/"), "openai")).toBe("http://h:7997/v1/embeddings");
    expect(embeddingEndpoint(new URL("https://h/proxy"), "openai")).toBe("https://h/proxy/v1/embeddings");
    expect(embeddingEndpoint(new URL("http://h:8080/"), "tei")).toBe("http://h:8080/embed");
  });
});

describe("embeddingRequestBody", () => {
  it("shapes each protocol's request", () => {
    expect(embeddingRequestBody("openai", ["a", "b"], "BAAI/bge-small-en-v1.5")).toEqual({
      input: ["a", "b"],
      encoding_format: "float",
      model: "BAAI/bge-small-en-v1.5",
    });
    expect(embeddingRequestBody("openai", ["a"])).toEqual({ input: ["a"], encoding_format: "float" });
    expect(embeddingRequestBody("tei", ["a"])).toEqual({ inputs: ["a"], normalize: true, truncate: true });
  });
});

describe("parseEmbeddingAnswer", () => {
  it("reads an OpenAI-compatible answer in its items' index order, with the model it names, normalized", () => {
    const answer = parseEmbeddingAnswer(
      "openai",
      {
        model: "BAAI/bge-small-en-v1.5",
        data: [
          { index: 1, embedding: [0, 2] },
          { index: 0, embedding: [3, 4] },
        ],
      },
      2,
    );
    expect(answer.model).toBe("BAAI/bge-small-en-v1.5");
    expect(answer.vectors.map((v) => [...v])).toEqual([
      [Math.fround(0.6), Math.fround(0.8)],
      [0, 1],
    ]);
  });
  it("reads a TEI answer, which names no model", () => {
    const answer = parseEmbeddingAnswer("tei", [[1, 0]], 1);
    expect(answer).toEqual({ vectors: [Float32Array.of(1, 0)] });
  });
  it("refuses an answer that is not one finite vector per text, all of one width", () => {
    const bad: [unknown, number, RegExp][] = [
      [{ data: [{ embedding: [1] }] }, 2, /1 vectors for 2 texts/],
      [{ data: [{ embedding: [1, 0] }, { embedding: [1] }] }, 2, /vector 1 is not a list of 2 numbers/],
      [{ data: [{ embedding: [1, "x"] }] }, 1, /not a finite number/],
      [{ data: [{ embedding: [0, 0] }] }, 1, /all zeros/],
      [{ data: [{ index: 3, embedding: [1] }] }, 1, /out of place/],
      [{ error: "no" }, 1, /data array/],
    ];
    for (const [body, texts, message] of bad) {
      expect(() => parseEmbeddingAnswer("openai", body, texts)).toThrow(
        expect.objectContaining({ name: "EmbeddingResponseError", message: expect.stringMatching(message) }),
      );
    }
    expect(() => parseEmbeddingAnswer("tei", { embeddings: [] }, 1)).toThrow(/array of vectors/);
  });
});

describe("nextConcurrency", () => {
  it("halves after a throttle (never below one) and grows by one after a success (never past the most)", () => {
    expect(nextConcurrency(4, 4, true)).toBe(2);
    expect(nextConcurrency(1, 4, true)).toBe(1);
    expect(nextConcurrency(2, 4, false)).toBe(3);
    expect(nextConcurrency(4, 4, false)).toBe(4);
  });
});

describe("serverHealthAfter", () => {
  const policy = { baseMs: 250, maxMs: 15_000, retryAfterCapMs: 60_000 };
  const longest = () => 1; // the jitter at its top: the doubled wait itself
  const fail = (h: ServerHealth, now: number, retryAfter?: number) =>
    serverHealthAfter(h, true, now, policy, retryAfter, longest);
  it("rests a failing server for a wait that doubles with its failures in a row, up to the longest", () => {
    let health: ServerHealth = { failures: 0, restingUntil: 0 };
    const rests: number[] = [];
    for (let i = 0; i < 9; i++) {
      const now = 100_000 * (i + 1); // each failure long after the last rest ended
      health = fail(health, now);
      rests.push(health.restingUntil - now);
    }
    expect(health.failures).toBe(9);
    expect(rests).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
  });
  it("clears the failures and the rest at the server's first success", () => {
    const tired = fail(fail(fail({ failures: 0, restingUntil: 0 }, 0), 1000), 5000);
    expect(tired.failures).toBe(3);
    expect(serverHealthAfter(tired, false, 6000, policy)).toEqual({ failures: 0, restingUntil: 0 });
    // after the success, the next failure rests it for the first wait again
    expect(fail(serverHealthAfter(tired, false, 6000, policy), 7000).restingUntil).toBe(7250);
  });
  it("rests at least as long as the server asked, and keeps a longer rest already set", () => {
    expect(fail({ failures: 0, restingUntil: 0 }, 1000, 30_000).restingUntil).toBe(31_000);
    expect(fail({ failures: 1, restingUntil: 20_000 }, 1000).restingUntil).toBe(20_000);
  });
});

describe("pickServer", () => {
  const load = (inFlight: number, allowed: number, restingUntil = 0) => ({ inFlight, allowed, restingUntil });
  it("takes the least loaded server with room, the first listed on a tie", () => {
    expect(pickServer([load(1, 4), load(0, 4)], 0)).toBe(1);
    expect(pickServer([load(0, 4), load(0, 4)], 0)).toBe(0);
    // loaded against what each allows now: 1 of 2 is fuller than 1 of 4
    expect(pickServer([load(1, 2), load(1, 4)], 0)).toBe(1);
    expect(pickServer([load(4, 4), load(3, 4)], 0)).toBe(1);
  });
  it("gives none while every server is full", () => {
    expect(pickServer([load(4, 4), load(2, 2)], 0)).toBeUndefined();
    expect(pickServer([], 0)).toBeUndefined();
  });
  it("gives a resting server nothing while another is awake, even full, and any server when all rest", () => {
    expect(pickServer([load(0, 4, 1000), load(3, 4)], 500)).toBe(1);
    // the awake one is full: wait for its room rather than meet a server that is likely gone
    expect(pickServer([load(0, 4, 1000), load(4, 4)], 500)).toBeUndefined();
    // the rest is over
    expect(pickServer([load(0, 4, 1000), load(3, 4)], 1000)).toBe(0);
    // every server rests (one server alone, or all failing): the least loaded with room is tried
    expect(pickServer([load(1, 4, 1000), load(0, 4, 2000)], 500)).toBe(1);
    expect(pickServer([load(0, 4, 1000)], 500)).toBe(0);
  });
});

describe("probeDisagreement", () => {
  const reference = [unit(1, 0, 0), unit(0, 1, 0)];
  it("accepts vectors at cosine 0.999 or more to the reference", () => {
    expect(probeDisagreement([unit(1, 0.01, 0), unit(0, 1, 0.02)], reference)).toBeUndefined();
  });
  it("names another width, and the worst cosine below the threshold", () => {
    expect(probeDisagreement([unit(1, 0), unit(0, 1)], reference)).toBe("its vectors have 2 dimensions, the index's 3");
    expect(probeDisagreement([unit(1, 0.1, 0), unit(0, 1, 0)], reference)).toMatch(/at cosine 0\.995\d/);
  });
});
