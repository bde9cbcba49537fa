// The filter language over HTTP on the real service (Koa, Temporal, PGlite, embedded engine, embedding model): 422
// INVALID_FILTER with its details and nothing charged, the echo, warnings and expansions, filtered requests always
// searched and billed, and a fuzz of thousands of malformed filters that must all answer 422 INVALID_FILTER, never a
// 5xx.
import { rmSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilterForCollections, FilterError } from "../../src/filters/parse.js";
import { JournalMetricIndex } from "../../src/journals/metricIndex.js";
import {
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  type TestService,
} from "../support/testService.js";
import { nearMiss, simpleWithDefect, structuredWithDefect } from "./malformedFilterArbitraries.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;

interface Result {
  id: string;
  collection: string;
  metadata: Record<string, unknown>;
}

/** An organization with credits and limits high enough for the fuzz, and one live key (scoped when asked). */
const liveKey = (collections?: string[]) =>
  operatorSteps(call, svc.adminToken).customer({
    org: {
      name: "Filter lab",
      limits: { perMinute: 1_000_000, daily: 1_000_000, monthly: 10_000_000, previewPerHour: 100_000 },
    },
    credits: "50.00",
    collections,
  });

const balanceOf = (orgId: string) => operatorSteps(call, svc.adminToken).balanceOf(orgId);

async function chargesOf(orgId: string): Promise<number> {
  const rows = await svc.runtime.db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM events WHERE type = 'SearchCharged' AND data->>'orgId' = $1`,
    [orgId],
  );
  return Number(rows[0]!.n);
}

/** Common words of medical abstracts, so probes find documents in a small slice whatever the slice holds. */
const PROBE_QUERY = "patients treatment study results randomized trial";

const INDEXED_FIELDS_SENTENCE =
  "Indexed fields: journal, publisher, keywords, publication_date, doi, issn, article_type, section, isbn, " +
  "open_access, chapter_number, chapter_title, chapter_authors, author_id.";

function expectInvalidFilter(
  res: {
    status: number;
    body: { error?: { code: string; message: string; requestId: string; details?: Record<string, unknown> } };
  },
  field: string | null,
): Record<string, unknown> {
  expect(res.status).toBe(422);
  const error = res.body.error!;
  expect(error.code).toBe("INVALID_FILTER");
  expect(error.requestId).toMatch(/^req_/);
  expect(error.message).toContain(INDEXED_FIELDS_SENTENCE);
  const details = error.details!;
  expect(details).toHaveProperty("filter");
  expect(details.field).toBe(field);
  if (field !== null) expect(error.message).toContain(field);
  return details;
}

let dataRoot: string | undefined;

beforeAll(async () => {
  dataRoot = await sliceDataRoot(60);
  svc = await startTestService({ dataRoot });
  call = httpClient(svc.baseUrl);
}, 900_000);

afterAll(async () => {
  await svc?.close();
  for (const dir of [dataRoot, svc?.dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("422 INVALID_FILTER over HTTP", () => {
  it("names the field, the indexed fields, details.field and details.filter; charges nothing; same again", async () => {
    const { orgId, key } = await liveKey();
    const balance = await balanceOf(orgId);
    const filters = {
      and: [
        { field: "journal", eq: "Cell" },
        { field: "jounral", eq: "Nature" },
      ],
    };
    const first = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "vitamin D deficiency", filters },
    });
    const details = expectInvalidFilter(first, "jounral");
    expect(details.filter).toEqual({ field: "jounral", eq: "Nature" });
    const retry = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "vitamin D deficiency", filters },
    });
    expect(retry.body.error.message).toBe(first.body.error.message);
    expect(retry.body.error.details).toEqual(first.body.error.details);
    for (const path of ["/api/v1/search/scifact", "/api/v1/search/preview"]) {
      const body = path.endsWith("preview")
        ? { collection: "scifact", query: "vitamin D deficiency", filters }
        : { query: "vitamin D deficiency", filters };
      expect(expectInvalidFilter(await call("POST", path, { key, body }), "jounral").filter).toEqual({
        field: "jounral",
        eq: "Nature",
      });
    }
    expect(await balanceOf(orgId)).toBe(balance);
    expect(await chargesOf(orgId)).toBe(0);
  });

  it("rejects doc_id, license, operators of the wrong family, non-calendar dates, unlisted article types", async () => {
    const { key } = await liveKey();
    const search = (filters: unknown) =>
      call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query: "insulin resistance", filters },
      });
    expectInvalidFilter(await search({ doc_id: "123" }), "doc_id");
    expectInvalidFilter(await search({ field: "license", eq: "cc-by" }), "license");
    expectInvalidFilter(await search({ field: "publication_date", gte: "2019", ne: "2020" }), "publication_date");
    expectInvalidFilter(await search({ publication_date: "2021-02-30" }), "publication_date");
    expectInvalidFilter(await search({ article_type: "blog-post" }), "article_type");
    expectInvalidFilter(await search({ journal: "Cell", or: [{ field: "journal", eq: "Nature" }] }), "journal");
    expectInvalidFilter(await search({ and: { field: "journal", eq: "Nature" } }), null);
    expectInvalidFilter(await search(["journal"]), null);
  });

  it("out-of-bound journal metric: names field, value and bound, with details.min_gte and max_lte", async () => {
    const { key } = await liveKey();
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "insulin resistance", filters: { "journal_metric.h_index": { gte: 10 } } },
    });
    const details = expectInvalidFilter(res, "journal_metric.h_index");
    expect(details).toMatchObject({ min_gte: 35, max_lte: 3 });
    expect(res.body.error.message).toContain("gte 10");
    expect(res.body.error.message).toContain("35");
  });

  it("an editorial-only field: rejected on a scholarly collection named directly, skipped in a meta one", async () => {
    const { key } = await liveKey();
    expectInvalidFilter(
      await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query: "cancer treatment outcomes", filters: { medical_board_approved: true } },
      }),
      "medical_board_approved",
    );
    expectInvalidFilter(
      await call("POST", "/api/v1/search/query", {
        key,
        body: {
          collections: ["clinical-digest", "openalex-synergy"],
          query: "cancer treatment outcomes",
          filters: { medical_board_approved: true },
        },
      }),
      "medical_board_approved",
    );
    const meta = await call("POST", "/api/v1/search/query", {
      key,
      body: {
        collection: "biomedical",
        query: "cancer treatment outcomes",
        limit: 20,
        filters: { medical_board_approved: true },
      },
    });
    expect(meta.status).toBe(200);
    expect(meta.body.results.length).toBeGreaterThan(0);
    for (const result of meta.body.results as Result[]) {
      expect(result.collection).toBe("biomedical");
      expect(result.metadata.medical_board_approved).toBe(true);
    }
  });
});

describe("scan fields", () => {
  it("are matched by scanning, with an unindexed_filter_field warning, where the collection scans", async () => {
    const { key } = await liveKey();
    const plain = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "immune response to infection", limit: 1 },
    });
    const title = String(plain.body.results[0].metadata.title);
    const scanned = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "immune response to infection", filters: { title: title.toUpperCase() } },
    });
    expect(scanned.status).toBe(200);
    expect(scanned.body.results.length).toBeGreaterThan(0);
    for (const result of scanned.body.results as Result[]) expect(result.metadata.title).toBe(title);
    expect(scanned.body.filterWarnings).toEqual([
      { code: "unindexed_filter_field", field: "title", message: expect.stringContaining('"title"') },
    ]);
    expectInvalidFilter(
      await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "openalex-synergy", query: "immune response", filters: { title } },
      }),
      "title",
    );
    expectInvalidFilter(
      await call("POST", "/api/v1/search/query", {
        key,
        body: { collections: ["scifact", "openalex-synergy"], query: "immune response", filters: { title } },
      }),
      "title",
    );
  });
});

describe("accepted filters", () => {
  it("echo the validated filter, canonical, in filtersApplied; metric expansions only for metric filters", async () => {
    const { key } = await liveKey();
    const probe = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-synergy", query: PROBE_QUERY, limit: 30 },
    });
    const withIssn = (probe.body.results as Result[]).find(
      (result) => Array.isArray(result.metadata.issn) && result.metadata.article_type === "research-article",
    );
    const issn = (withIssn!.metadata.issn as string[])[0];
    const filters = {
      issn: [issn.replace("-", "").toLowerCase()],
      article_type: "Journal Article",
      publication_date: { gte: "1900" },
    };
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-synergy", query: PROBE_QUERY, filters },
    });
    expect(res.status).toBe(200);
    expect(res.body.filtersApplied).toEqual({
      issn: [issn.toUpperCase()],
      article_type: "research-article",
      publication_date: { gte: "1900" },
    });
    expect(res.body).not.toHaveProperty("journalMetricExpansions");
    expect(res.body).not.toHaveProperty("filterWarnings");
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const result of res.body.results as Result[]) expect(result.metadata.issn).toContain(issn);
    const preview = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "openalex-synergy", query: PROBE_QUERY, filters },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.filtersApplied).toEqual(res.body.filtersApplied);
    expect((preview.body.results as Result[]).map((result) => result.id)).toEqual(
      (res.body.results as Result[]).map((result) => result.id),
    );

    const metric = await call("POST", "/api/v1/search/query", {
      key,
      body: {
        collection: "openalex-synergy",
        query: PROBE_QUERY,
        filters: {
          and: [
            { field: "journal_metric.h_index", between: [0, 1000] },
            { field: "journal_metric.i10_index", between: [900000, 900001] },
          ],
        },
      },
    });
    expect(metric.status).toBe(200);
    // each entry says what the metrics are computed from: here the indexed works of the sliced data root
    const basis = expect.stringMatching(
      new RegExp(
        String.raw`^Journal metrics are computed from the \d+ OpenAlex works this service indexes that name their ` +
          String.raw`journal \(published (in \d{4}|\d{4}-\d{4}), citations counted in \d{4}\)`,
      ),
    );
    expect(metric.body.journalMetricExpansions).toEqual([
      {
        field: "journal_metric.h_index",
        condition: "between 0 and 1000",
        matchedJournals: expect.any(Number),
        issnCount: expect.any(Number),
        sampleIssns: expect.any(Array),
        metricsBasis: basis,
      },
      {
        field: "journal_metric.i10_index",
        condition: "between 900000 and 900001",
        matchedJournals: 0,
        issnCount: 0,
        sampleIssns: [],
        metricsBasis: basis,
      },
    ]);
    expect(metric.body.filterWarnings).toEqual([
      { code: "journal_metric_matched_nothing", field: "journal_metric.i10_index", message: expect.any(String) },
    ]);
    expect(metric.body.results).toEqual([]);
    const refetch = await call("GET", `/api/v1/search/results/${metric.body.queryId}`, { key });
    expect(refetch.body.journalMetricExpansions).toEqual(metric.body.journalMetricExpansions);
    expect(refetch.body.filterWarnings).toEqual(metric.body.filterWarnings);
  });

  it("open_access on the open-access-only collection: true matches all of it, false excludes it, warning", async () => {
    const { key } = await liveKey();
    const all = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-open-access", query: "patients study results", filters: { open_access: true } },
    });
    expect(all.status).toBe(200);
    expect(all.body.results.length).toBeGreaterThan(0);
    for (const result of all.body.results as Result[]) expect(result.metadata.open_access).toBe(true);
    const none = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-open-access", query: "patients study results", filters: { open_access: false } },
    });
    expect(none.status).toBe(200);
    expect(none.body.results).toEqual([]);
    expect(none.body.filterWarnings).toEqual([
      {
        code: "open_access_collection_excluded",
        field: "open_access",
        message: expect.stringContaining("openalex-open-access"),
      },
    ]);
  });

  it("a filter on a field a collection's records never carry says so (filter_field_absent)", async () => {
    const { key } = await liveKey();
    const search = (collection: string, filters: unknown) =>
      call("POST", "/api/v1/search/query", { key, body: { collection, query: "vitamin D deficiency", filters } });
    const since = { publication_date: { gte: "2015" } };
    // SciFact's records have no dates: empty whatever the year, and told so
    const scifact = await search("scifact", since);
    expect(scifact.status).toBe(200);
    expect(scifact.body.results).toEqual([]);
    expect(scifact.body.filterWarnings).toEqual([
      {
        code: "filter_field_absent",
        field: "publication_date",
        collection: "scifact",
        message: expect.stringContaining("no document of scifact carries publication_date"),
      },
    ]);
    const refetch = await call("GET", `/api/v1/search/results/${scifact.body.queryId}`, { key });
    expect(refetch.body.filterWarnings).toEqual(scifact.body.filterWarnings);
    // under a meta-collection the member is named, and the members that carry dates answer
    const meta = await search("biomedical", since);
    expect(meta.body.results.length).toBeGreaterThan(0);
    expect(meta.body.filterWarnings).toContainEqual({
      code: "filter_field_absent",
      field: "publication_date",
      collection: "scifact",
      message: expect.stringContaining("scifact (searched as part of biomedical)"),
    });
    // a field the collection carries, asked a value none has; the field under not: no such warning
    const future = await search("openalex-synergy", { publication_date: { gte: "2100" } });
    expect([future.status, future.body.results, future.body.filterWarnings]).toEqual([200, [], undefined]);
    const negated = await search("scifact", { not: [{ field: "journal", eq: "The Lancet" }] });
    expect(negated.body.results.length).toBeGreaterThan(0);
    expect(negated.body.filterWarnings).toBeUndefined();
  });

  it("a journal named as no work of the collection spells it says so, with the nearest it holds", async () => {
    const { key } = await liveKey();
    const search = (filters: unknown) =>
      call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "openalex-synergy", query: "patients study results", limit: 20, filters },
      });
    const rows = (await search({ article_type: "research-article" })).body.results as Result[];
    const title = rows
      .map((r) => r.metadata.journal)
      .find((j): j is string => typeof j === "string" && j.split(" ").length >= 3);
    expect(title).toBeDefined();
    // the title less its first word ("Journal of ..." for "The Journal of ..."): no work spells it so
    const part = title!.split(" ").slice(1).join(" ");
    const unmatched = await search({ journal: part });
    expect(unmatched.status).toBe(200);
    expect(unmatched.body.results).toEqual([]);
    const [warning] = unmatched.body.filterWarnings;
    expect(warning).toMatchObject({
      code: "filter_value_unmatched",
      field: "journal",
      collection: "openalex-synergy",
      message: expect.stringContaining("filter by issn"),
    });
    expect(warning.value.toLowerCase()).toBe(part.toLowerCase());
    expect(warning.suggestions).toContain(title);
    // the whole title, in any case, matches and says nothing
    const whole = await search({ journal: title!.toUpperCase() });
    expect(whole.body.results.length).toBeGreaterThan(0);
    expect(whole.body.filterWarnings).toBeUndefined();
  });

  it("a request carrying filters is searched and billed even when it reads like a catalogue question", async () => {
    const { orgId, key } = await liveKey();
    for (const filters of [{}, { article_type: "research-article" }]) {
      const res = await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "openalex-synergy", query: "which journals publish studies on patients?", filters },
      });
      expect(res.status).toBe(200);
      expect(res.body.discovery ?? null).toBeNull();
      expect(res.body.results.length).toBeGreaterThan(0);
      expect(res.body.filtersApplied).toEqual(filters);
      expect(Number(res.headers.get("x-query-cost"))).toBeGreaterThan(0);
    }
    expect(await chargesOf(orgId)).toBe(2);
  });
});

describe("doi_not_in_collection", () => {
  it("warns for each pinned DOI the searched collections lack, naming only reachable collections", async () => {
    const { key: wide } = await liveKey();
    const probe = await call("POST", "/api/v1/search/query", {
      key: wide,
      body: { collection: "openalex-synergy", query: PROBE_QUERY, limit: 30 },
    });
    const results = probe.body.results as Result[];
    const closed = results.find(
      (result) => result.metadata.open_access === false && typeof result.metadata.doi === "string",
    );
    const held = results.find((result) => typeof result.metadata.doi === "string" && result !== closed);
    const closedDoi = String(closed!.metadata.doi);
    const heldDoi = String(held!.metadata.doi);
    const missing = "10.5555/no-such-work-anywhere";

    const { key: scoped } = await liveKey(["openalex-open-access", "openalex-synergy"]);
    const reachable = await call("POST", "/api/v1/search/query", {
      key: scoped,
      body: {
        collection: "openalex-open-access",
        query: PROBE_QUERY,
        filters: { doi: [`https://doi.org/${closedDoi.toUpperCase()}`, missing] },
      },
    });
    expect(reachable.status).toBe(200);
    // the message says which case it is, and `reason` says it to a client that does not read messages
    expect(reachable.body.filterWarnings).toEqual([
      {
        code: "doi_not_in_collection",
        field: "doi",
        message: expect.stringContaining('"openalex-synergy" holds it'),
        doi: closedDoi.toLowerCase(),
        reason: "in_other_collection",
      },
      {
        code: "doi_not_in_collection",
        field: "doi",
        message: expect.stringContaining("no collection of this service holds it"),
        doi: missing,
        reason: "not_held",
      },
    ]);
    expect(reachable.body.filterWarnings[0].message).toContain(closedDoi);

    const { key: narrow } = await liveKey(["scifact"]);
    const unreachable = await call("POST", "/api/v1/search/query", {
      key: narrow,
      body: { collection: "scifact", query: PROBE_QUERY, filters: { doi: closedDoi } },
    });
    expect(unreachable.body.filterWarnings).toEqual([
      {
        code: "doi_not_in_collection",
        field: "doi",
        message: expect.stringContaining("only by collections this API key cannot reach"),
        doi: closedDoi.toLowerCase(),
        reason: "outside_key_scope",
      },
    ]);
    expect(unreachable.body.filterWarnings[0].message).not.toContain("openalex");

    const found = await call("POST", "/api/v1/search/query", {
      key: wide,
      body: {
        collection: "openalex-synergy",
        query: PROBE_QUERY,
        filters: {
          or: [
            { field: "doi", eq: heldDoi },
            { field: "doi", eq: closedDoi },
          ],
        },
      },
    });
    expect(found.body).not.toHaveProperty("filterWarnings");
    expect((found.body.results as Result[]).map((result) => result.metadata.doi).sort()).toEqual(
      expect.arrayContaining([heldDoi]),
    );
  });
});

describe("fuzz over HTTP", () => {
  it("thousands of malformed filters on each search route: 422 INVALID_FILTER always, no 5xx, no charge", async () => {
    const { orgId, key } = await liveKey();
    const balance = await balanceOf(orgId);
    // JSON null is "no filter"; every other value these generators make is malformed wherever it is sent
    const rejectedByParser = (filter: unknown): boolean => {
      try {
        compileFilterForCollections(
          filter,
          [{ name: "x", editorial: true, openAccessOnly: false, scanFilterable: true, isMetaMember: false }],
          { journals: JournalMetricIndex.empty() },
        );
        return false;
      } catch (error) {
        return error instanceof FilterError;
      }
    };
    const asSent = (filter: unknown): unknown => JSON.parse(JSON.stringify(filter) ?? "null");
    const malformed = fc
      .oneof(
        { arbitrary: structuredWithDefect, weight: 4 },
        { arbitrary: simpleWithDefect, weight: 3 },
        {
          arbitrary: fc
            .oneof(nearMiss, fc.jsonValue())
            .map(asSent)
            .filter((filter) => filter !== null && rejectedByParser(filter)),
          weight: 2,
        },
      )
      .map(asSent)
      .filter((filter) => filter !== null);
    const target = fc.constantFrom(
      (filters: unknown) => ({
        path: "/api/v1/search/query",
        body: { collection: "scifact", query: "vitamin D and bone density", filters },
      }),
      (filters: unknown) => ({
        path: "/api/v1/search/query",
        body: { collection: "biomedical", query: "vitamin D and bone density", filters },
      }),
      (filters: unknown) => ({
        path: "/api/v1/search/query",
        body: { collections: ["openalex-synergy", "clinical-digest"], query: "vitamin D and bone density", filters },
      }),
      (filters: unknown) => ({
        path: "/api/v1/search/openalex-open-access",
        body: { query: "vitamin D and bone density", filters },
      }),
      (filters: unknown) => ({
        path: "/api/v1/search/preview",
        body: { collection: "clinical-digest", query: "vitamin D and bone density", filters },
      }),
    );
    const cases = fc.sample(fc.tuple(malformed, target), { numRuns: 4000, seed: 20261122 });
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    const started = performance.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < cases.length) {
        const [filters, request] = cases[next++];
        const { path, body } = request(filters);
        const res = await call("POST", path, { key, body });
        const outcome = `${res.status} ${res.body?.error?.code ?? ""}`;
        statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
        const details = res.body?.error?.details;
        const message = String(res.body?.error?.message);
        const fieldNamed = typeof details?.field !== "string" || message.includes(details.field);
        if (
          outcome !== "422 INVALID_FILTER" ||
          !details ||
          !("field" in details) ||
          !("filter" in details) ||
          !fieldNamed ||
          !message.includes("Indexed fields:")
        ) {
          failures.push(
            `${path} ${JSON.stringify(filters).slice(0, 300)} -> ${outcome} ${JSON.stringify(res.body).slice(0, 300)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    console.log(
      `[filter fuzz over HTTP] ${cases.length} requests in ` +
        `${((performance.now() - started) / 1000).toFixed(1)}s: ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(cases.length).toBe(4000);
    expect(await balanceOf(orgId)).toBe(balance);
    expect(await chargesOf(orgId)).toBe(0);
  }, 300_000);
});
