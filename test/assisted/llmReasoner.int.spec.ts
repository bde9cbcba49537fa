// The chat-model reasoner against a scripted stand-in of an OpenAI-compatible chat-completions server (node:http):
// the request it sends (model, messages, response_format json_schema, Authorization), the success path, and the
// fallback to the built-in reasoner on malformed JSON (at once), timeouts and 500s (after the retries).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinReasoner } from "../../src/reasoner/builtin/builtinReasoner.js";
import { createReasoner } from "../../src/reasoner/createReasoner.js";
import type { LlmConfig } from "../../src/reasoner/llm/llmContext.js";
import { createLlmReasoner } from "../../src/reasoner/llm/llmReasoner.js";
import { RESPONSE_SCHEMAS } from "../../src/reasoner/llm/llmSchemas.js";
import type { Candidate, Reasoner } from "../../src/reasoner/port.js";
import type { Embedder } from "../../src/embedding/port.js";
import { llmReasonerConfigFrom } from "../../src/app/config.js";
import { compileFilterForCollections } from "../../src/filters/parse.js";
import { JournalMetricIndex } from "../../src/journals/metricIndex.js";
import { journal } from "../journals/syntheticJournals.js";

interface Recorded {
  path: string;
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format: { type: string; json_schema: { name: string; strict: boolean; schema: unknown } };
    temperature: number;
  };
}

type Script = (request: Recorded, res: ServerResponse) => void | Promise<void>;

let server: Server;
let baseUrl: string;
let recorded: Recorded[] = [];
let script: Script[] = [];

function reply(res: ServerResponse, content: string, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(
    status === 200
      ? JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          model: "test-model",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
        })
      : content,
  );
}

const json =
  (value: unknown): Script =>
  (_req, res) =>
    reply(res, JSON.stringify(value));
const status500: Script = (_req, res) => reply(res, JSON.stringify({ error: { message: "upstream overloaded" } }), 500);
const hang: Script = (_req, res) =>
  new Promise<void>((resolve) =>
    setTimeout(() => {
      if (!res.destroyed) reply(res, "{}");
      resolve();
    }, 1500),
  );

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => {
      const request: Recorded = {
        path: req.url ?? "",
        headers: req.headers,
        body: JSON.parse(raw) as Recorded["body"],
      };
      recorded.push(request);
      const next = script.shift();
      if (!next) return reply(res, JSON.stringify({ error: "no scripted answer left" }), 500);
      void next(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  script = [];
});

/** A deterministic stand-in embedder: the built-in fallback's judge only needs vectors of the right shape. */
const hashEmbedder: Embedder = {
  modelName: "hash-test",
  dims: 16,
  async embedPassages(texts) {
    return texts.map((t) => vectorOf(t));
  },
  async embedQuery(text) {
    return vectorOf(text);
  },
  async close() {},
};

function vectorOf(text: string): Float32Array {
  const v = new Float32Array(16);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let h = 0;
    for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    v[h % 16]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const journals = [journal({ issns: ["0028-0836", "1476-4687"], title: "Nature", publisher: "Nature Portfolio" })];
const builtin = createBuiltinReasoner({
  embedder: hashEmbedder,
  journals,
  clock: () => new Date("2025-06-15T00:00:00Z"),
});

function llm(overrides: Partial<LlmConfig> = {}, fallbacks: string[] = []): Reasoner {
  return createLlmReasoner(
    { baseUrl, model: "test-model", apiKey: "sk-test-123", timeoutMs: 300, retries: 2, ...overrides },
    { fallback: builtin, journals, onFallback: (stage, error) => fallbacks.push(`${stage}: ${error.message}`) },
  );
}

const understandingAnswer = {
  intent: "find reviews",
  entities: ["CRISPR off-target effects"],
  aspects: ["safety"],
  caseSummary: "Reviews of CRISPR off-target effects in Nature since 2015.",
  filters: {
    journal: "Nature",
    publisher: null,
    article_type: "Review Article",
    publication_date: { gte: "2015-01-01", lt: null },
  },
  subQuestions: ["CRISPR off-target effects", "CRISPR specificity improvements"],
  clarification: null,
};

const candidates: Candidate[] = [
  {
    id: "c1",
    collection: "scifact",
    text: "Off-target cleavage by Cas9 was detected at sites with up to five mismatches.",
    section: null,
    title: "CRISPR specificity",
    subQuestion: "CRISPR off-target effects",
    retrievalScore: 0.8,
    rank: 0,
  },
  {
    id: "c2",
    collection: "scifact",
    text: "Dough should rest for 24 hours before baking.",
    section: null,
    title: "Pizza",
    subQuestion: "CRISPR off-target effects",
    retrievalScore: 0.1,
    rank: 1,
  },
];

describe("chat-model reasoner, model answering", () => {
  it("sends the model, messages, a strict json_schema response format and the key; reads the answer", async () => {
    script = [json(understandingAnswer)];
    const u = await llm().understand({
      query: "reviews since 2015 in Nature about CRISPR off-target effects",
      callerFilters: null,
    });
    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer sk-test-123");
    expect(request!.headers["content-type"]).toMatch(/application\/json/);
    expect(request!.body.model).toBe("test-model");
    expect(request!.body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request!.body.messages[1]!.content).toContain(
      "reviews since 2015 in Nature about CRISPR off-target effects",
    );
    expect(request!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "understanding", strict: true, schema: RESPONSE_SCHEMAS.understanding },
    });

    expect(u.answeredBy).toBe("llm:test-model");
    expect(u.entities).toEqual(["CRISPR off-target effects"]);
    expect(u.subQuestions).toEqual(["CRISPR off-target effects", "CRISPR specificity improvements"]);
    // the model's journal becomes the table's ISSNs; its article type is canonicalized; nulls are dropped
    expect(u.filters).toEqual({ journal: "Nature", article_type: "review", publication_date: { gte: "2015-01-01" } });
    expect(u.queryFilter).toEqual({
      publication_date: { gte: "2015-01-01" },
      article_type: "review",
      issn: ["0028-0836", "1476-4687"],
    });
    compileFilterForCollections(
      u.queryFilter,
      [{ name: "scifact", editorial: false, openAccessOnly: false, scanFilterable: true, isMetaMember: false }],
      { journals: new JournalMetricIndex(journals) },
    );
  });

  it("lets a clarification answer lead: the model gets the question it makes, and the run judges by it", async () => {
    script = [json(understandingAnswer)];
    const answer = "CRISPR off-target effects in human cells";
    const u = await llm().understand({ query: "is it safe?", callerFilters: null, clarificationAnswer: answer });
    expect(u.answeredBy).toBe("llm:test-model");
    expect(u.clarification).toBeNull();
    // the answer names the topic the query's "it" stands for: what the query asks of it (safety) is kept
    const question = "is CRISPR off-target effects in human cells safe?";
    expect(u.question).toBe(question);
    expect(recorded[0]!.body.messages[1]!.content).toContain(
      "The answer leads: understand and plan this question, keeping only the constraints of the query that " +
        `the answer does not contradict: ${JSON.stringify(question)}`,
    );
  });

  it("sends no Authorization header without a key", async () => {
    script = [json({ subQuestions: ["a new angle"] })];
    const u = await builtin.understand({ query: "effects of caffeine on sleep and memory", callerFilters: null });
    expect(
      await llm({ apiKey: undefined }).plan({
        query: "effects of caffeine on sleep and memory",
        understanding: u,
        round: 2,
        searched: [],
      }),
    ).toEqual(["a new angle"]);
    expect(recorded[0]!.headers.authorization).toBeUndefined();
    expect(recorded[0]!.body.response_format.json_schema.name).toBe("plan");
  });

  it("judges every candidate, verified at the threshold, and says the model answered", async () => {
    script = [
      json({
        verdicts: [
          { index: 1, judgeScore: 0.02, matchedTerms: [], rationale: "A baking instruction, unrelated to CRISPR." },
          {
            index: 0,
            judgeScore: 0.91,
            matchedTerms: ["Off-target cleavage", "Cas9"],
            rationale: 'Quotes "Off-target cleavage by Cas9 was detected" and names Cas9.',
          },
        ],
      }),
    ];
    const verdicts = await llm().judge("CRISPR off-target effects", understandingAnswer, candidates);
    expect(verdicts.map((v) => [v.id, v.judgeScore, v.verified, v.answeredBy])).toEqual([
      ["c1", 0.91, true, "llm:test-model"],
      ["c2", 0.02, false, "llm:test-model"],
    ]);
    expect(recorded[0]!.body.messages[1]!.content).toContain("[1] Pizza: Dough should rest");
    expect(recorded[0]!.body.response_format.json_schema.name).toBe("verdicts");
  });

  it("retries a 500 and uses the answer that follows", async () => {
    script = [status500, json(understandingAnswer)];
    const u = await llm().understand({ query: "CRISPR off-target effects", callerFilters: null });
    expect(recorded).toHaveLength(2);
    expect(u.answeredBy).toBe("llm:test-model");
  });

  it("never lets the model ask about a document the caller filters pin", async () => {
    script = [
      json({ ...understandingAnswer, clarification: { question: "Which article do you mean?", reason: "vague" } }),
    ];
    const u = await llm().understand({ query: "summarize this", callerFilters: { doi: "10.1038/nature12373" } });
    expect(u.clarification).toBeNull();
  });
});

describe("chat-model reasoner, falling back to the built-in one", () => {
  it("falls back at once on malformed JSON (no retry: the same prompt would answer the same)", async () => {
    const fallbacks: string[] = [];
    script = [(_req, res) => reply(res, '{"intent": "find reviews", "entities": [')];
    const u = await llm({}, fallbacks).understand({
      query: "reviews since 2015 in Nature about CRISPR off-target effects",
      callerFilters: null,
    });
    expect(recorded).toHaveLength(1);
    expect(u.answeredBy).toBe("builtin");
    expect(u.queryFilter).toEqual({
      publication_date: { gte: "2015-01-01" },
      article_type: "review",
      issn: ["0028-0836", "1476-4687"],
    });
    expect(fallbacks).toEqual([expect.stringMatching(/^understand: malformed answer/)]);
  });

  it("falls back when the JSON does not follow the schema", async () => {
    const fallbacks: string[] = [];
    script = [json({ verdicts: [{ index: 0, judgeScore: 7, matchedTerms: [], rationale: "x" }] })];
    const verdicts = await llm({}, fallbacks).judge("CRISPR off-target effects", understandingAnswer, candidates);
    expect(verdicts.map((v) => v.answeredBy)).toEqual(["builtin", "builtin"]);
    expect(verdicts.map((v) => v.id)).toEqual(["c1", "c2"]);
    expect(fallbacks[0]).toMatch(/^judge: answer does not follow the schema/);
  });

  it("retries a timeout, then falls back", async () => {
    const fallbacks: string[] = [];
    script = [hang, hang, hang];
    const started = performance.now();
    const u = await llm({ timeoutMs: 200, retries: 2 }, fallbacks).understand({
      query: "does vitamin D supplementation reduce fracture risk in older adults",
      callerFilters: null,
    });
    expect(recorded).toHaveLength(3);
    expect(u.answeredBy).toBe("builtin");
    expect(u.entities).toEqual(["vitamin D supplementation", "fracture risk", "older adults"]);
    expect(fallbacks).toEqual([expect.stringMatching(/^understand: no answer within 200 ms/)]);
    expect(performance.now() - started).toBeLessThan(1400);
  });

  it("retries a 500, then falls back", async () => {
    const fallbacks: string[] = [];
    script = [status500, status500];
    const u = await builtin.understand({ query: "effects of caffeine on sleep and memory", callerFilters: null });
    const planned = await llm({ retries: 1 }, fallbacks).plan({
      query: "effects of caffeine on sleep and memory",
      understanding: u,
      round: 1,
      searched: [],
    });
    expect(recorded).toHaveLength(2);
    expect(planned).toEqual(u.subQuestions);
    expect(fallbacks).toEqual([expect.stringMatching(/^plan: HTTP 500/)]);
  });

  it("falls back when nothing listens", async () => {
    const reasoner = createLlmReasoner(
      { baseUrl: "http://127.0.0.1:1/v1", model: "absent", timeoutMs: 200, retries: 0 },
      { fallback: builtin, journals },
    );
    const u = await reasoner.understand({ query: "cancer", callerFilters: null });
    expect(u.answeredBy).toBe("builtin");
    expect(u.clarification).not.toBeNull();
    expect(reasoner.name).toBe("llm:absent");
  });
});

describe("the factory and its configuration", () => {
  it("builds the built-in reasoner without LLM settings and the chat one with them", () => {
    expect(createReasoner({ embedder: hashEmbedder, journals }, { llm: null }).name).toBe("builtin");
    expect(
      createReasoner(
        { embedder: hashEmbedder, journals },
        { llm: { baseUrl, model: "gpt-test", timeoutMs: 1000, retries: 1 } },
      ).name,
    ).toBe("llm:gpt-test");
  });

  it("reads LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, LLM_TIMEOUT_MS and LLM_RETRIES, and rejects half a setting", () => {
    expect(llmReasonerConfigFrom({})).toBeNull();
    expect(
      llmReasonerConfigFrom({
        LLM_BASE_URL: "https://llm.example/v1",
        LLM_MODEL: "m",
        LLM_API_KEY: "k",
        LLM_TIMEOUT_MS: "5000",
        LLM_RETRIES: "0",
      }),
    ).toEqual({ baseUrl: "https://llm.example/v1", model: "m", apiKey: "k", timeoutMs: 5000, retries: 0 });
    expect(llmReasonerConfigFrom({ LLM_BASE_URL: "https://llm.example/v1", LLM_MODEL: "m" })).toEqual({
      baseUrl: "https://llm.example/v1",
      model: "m",
      apiKey: undefined,
      timeoutMs: 20000,
      retries: 2,
    });
    expect(() => llmReasonerConfigFrom({ LLM_MODEL: "m" })).toThrow(/go together/);
    expect(() => llmReasonerConfigFrom({ LLM_BASE_URL: "not a url", LLM_MODEL: "m" })).toThrow(/must be a URL/);
    expect(() =>
      llmReasonerConfigFrom({ LLM_BASE_URL: "https://llm.example/v1", LLM_MODEL: "m", LLM_RETRIES: "-1" }),
    ).toThrow(/LLM_RETRIES/);
  });
});
