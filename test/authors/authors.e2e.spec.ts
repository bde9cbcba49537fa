// Authors on the real service (Temporal, PGlite, both engines) over real demo records: the first OpenAlex SYNERGY
// works and the hair-glucocorticoid review's (where Clemens Kirschbaum has two OpenAlex ids, one with an ORCID), and
// MEDLINE citations whose authors carry ORCIDs but no OpenAlex id. A person by id or ORCID in every spelling, never
// merged by name; a search by name; their works paged newest first; the author_id filter; MCP; and the attacks: no
// key, another key's collections, a sandbox key, malformed ids, NUL bytes and other spellings of the path.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ENGINES,
  openAlexHeadAndHairReview,
  httpClient,
  operatorSteps,
  SHARED_DATA,
  sliceDataRoot,
  startTestService,
  type TestService,
} from "../support/testService.js";
import { rawRequest } from "../http/rawRequest.js";
import { Author, AuthorsPage, AuthorWorksPage, Work } from "../../src/http/openapi/responses.js";

/** Clemens Kirschbaum's OpenAlex id with his ORCID; OpenAlex also holds a second id for him, without one. */
const KIRSCHBAUM = { id: "A1928796387", orcid: "0000-0003-3707-4444", other: "A4343333101" };
/** An ORCID with an X check digit, and an accented name. */
const PUHSE = { id: "A1783565427", orcid: "0000-0003-1228-316X" };
/** MEDLINE authors known only by ORCID (citations 274 and 495 of the sample). */
const MEDLINE_ORCIDS = ["0000-0001-9921-6968", "0000-0001-6596-153X"];

/** The MEDLINE sample's first 20 citations and the two whose authors carry the ORCIDs above. */
function medlineSelection(): Buffer {
  const xml = gunzipSync(readFileSync(join(SHARED_DATA, "articles", "pubmed_medline16n0902_sample.xml.gz"))).toString(
    "utf8",
  );
  const citations = [...xml.matchAll(/<MedlineCitation [\s\S]*?<\/MedlineCitation>/g)].map((m) => m[0]);
  const kept = [...citations.slice(0, 20), ...citations.filter((c) => MEDLINE_ORCIDS.some((o) => c.includes(o)))];
  const head = xml.slice(0, xml.indexOf("<MedlineCitation "));
  return gzipSync(`${head}${kept.join("\n")}\n</MedlineCitationSet>\n`);
}

/** What each engine answered, by request: the last test compares them. */
const answers: Record<string, Record<string, unknown>> = {};

describe.each(ENGINES)("authors on the %s engine", (engine) => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let key: string;
  let orgId: string;
  const seen: Record<string, unknown> = (answers[engine] = {});

  beforeAll(async () => {
    const dataRoot = await sliceDataRoot(20);
    writeFileSync(
      join(dataRoot, "articles", "openalex_works.synergy.jsonl.gz"),
      gzipSync((await openAlexHeadAndHairReview()).join("\n") + "\n"),
    );
    writeFileSync(join(dataRoot, "articles", "pubmed_medline16n0902_sample.xml.gz"), medlineSelection());
    svc = await startTestService({ dataRoot, engine });
    call = httpClient(svc.baseUrl);
    ({ orgId, key } = await operatorSteps(call, svc.adminToken).customer({ credits: "5.00" }));
  }, 900_000);

  afterAll(async () => {
    await svc?.close();
  });

  const get = async (path: string, k: string | undefined = key) => call("GET", path, k ? { key: k } : {});
  const author = async (id: string, k?: string) => {
    const res = await get(`/api/v1/authors/${id}`, k);
    if (res.status === 200) Author.strict().parse(res.body);
    return res;
  };
  const dailyUsed = async () => (await get("/api/v1/search/quota")).body.dailyUsed as number;
  const ledgerLines = async () =>
    (await call("GET", `/admin/v1/organizations/${orgId}/ledger`, { admin: svc.adminToken })).body.entries.length;

  it("gives works their authorships: OpenAlex ids, ORCIDs and positions; MEDLINE names with ORCIDs", async () => {
    const works = await get(`/api/v1/authors/${KIRSCHBAUM.id}/works?limit=1`);
    expect(works.status).toBe(200);
    const work = Work.parse(works.body.items[0]);
    const own = work.authorships.find((a) => a.id === KIRSCHBAUM.id)!;
    expect(own).toMatchObject({ name: "Clemens Kirschbaum", orcid: KIRSCHBAUM.orcid });
    expect(work.authorships[0]!.position).toBe("first");
    expect(work.authorships.map((a) => a.name)).toEqual(work.authors);
    const byLookup = await get(`/api/v1/works/${work.ids.openalex}`);
    expect(byLookup.body.authorships).toEqual(work.authorships);

    const medline = await author(MEDLINE_ORCIDS[0]!);
    expect(medline.status).toBe(200);
    expect(medline.body).toMatchObject({ ids: { openalex: null, orcid: MEDLINE_ORCIDS[0] }, worksCount: 1 });
    expect(medline.body.collections).toEqual(["clinical-digest"]);
    const pmidWork = await get(`/api/v1/authors/${MEDLINE_ORCIDS[0]}/works`);
    const medlineAuthorships = pmidWork.body.items[0].authorships as Array<Record<string, unknown>>;
    expect(medlineAuthorships.every((a) => a.id === null)).toBe(true);
    expect(medlineAuthorships.filter((a) => a.orcid === MEDLINE_ORCIDS[0])).toHaveLength(1);
    expect(medlineAuthorships.at(-1)!.position).toBe(medlineAuthorships.length > 1 ? "last" : "first");
  });

  it("answers a person by OpenAlex id or ORCID in any spelling, free and counted as works lookups are", async () => {
    const [daily, ledger] = [await dailyUsed(), await ledgerLines()];
    const res = await author(KIRSCHBAUM.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-query-cost")).toBe("0.000000");
    expect(res.body).toMatchObject({
      id: KIRSCHBAUM.id,
      name: "Clemens Kirschbaum",
      ids: { openalex: KIRSCHBAUM.id, orcid: KIRSCHBAUM.orcid, otherOpenalex: [] },
      collections: expect.arrayContaining(["openalex-synergy"]),
    });
    expect(res.body.worksCount).toBeGreaterThan(10);
    expect(res.body.firstYear).toBeLessThanOrEqual(res.body.lastYear);
    expect(res.body.coAuthors.length).toBeGreaterThan(0);
    // the other Kirschbaum id is another person as far as the sources say: never merged by the name
    expect(res.body.coAuthors.map((c: { id: string }) => c.id)).not.toContain(KIRSCHBAUM.id);
    seen.author = res.body;
    for (const spelling of [
      KIRSCHBAUM.id.toLowerCase(),
      `https://openalex.org/${KIRSCHBAUM.id}`,
      encodeURIComponent(`https://openalex.org/${KIRSCHBAUM.id}`),
    ]) {
      const again = await author(spelling);
      expect([again.status, again.body.worksCount], spelling).toEqual([200, res.body.worksCount]);
    }
    for (const spelling of [
      KIRSCHBAUM.orcid,
      KIRSCHBAUM.orcid.replace(/-/g, ""),
      `https://orcid.org/${KIRSCHBAUM.orcid}`,
      encodeURIComponent(`https://orcid.org/${KIRSCHBAUM.orcid}`),
    ]) {
      const byOrcid = await author(spelling);
      expect([byOrcid.status, byOrcid.body.id, byOrcid.body.worksCount], spelling).toEqual([
        200,
        KIRSCHBAUM.orcid,
        res.body.worksCount,
      ]);
    }
    const lower = await author(PUHSE.orcid.toLowerCase());
    expect([lower.status, lower.body.id, lower.body.ids.openalex]).toEqual([200, PUHSE.orcid, PUHSE.id]);
    const other = await author(KIRSCHBAUM.other);
    expect(other.status).toBe(200);
    expect(other.body.ids).toMatchObject({ openalex: KIRSCHBAUM.other, orcid: null });
    expect(await dailyUsed()).toBe(daily);
    expect(await ledgerLines()).toBe(ledger);
  });

  it("searches people by name without accents or case, never merging two ids of one name, paged", async () => {
    const page = await get("/api/v1/authors?name=KIRSCHBAUM&limit=1");
    expect(page.status).toBe(200);
    AuthorsPage.strict().parse(page.body);
    expect(page.body.data).toHaveLength(1);
    const next = await get(`/api/v1/authors?name=KIRSCHBAUM&limit=1&cursor=${page.body.nextCursor}`);
    const ids = [...page.body.data, ...next.body.data].map((a: { id: string }) => a.id);
    expect(ids.sort()).toEqual([KIRSCHBAUM.id, KIRSCHBAUM.other].sort());
    expect([...page.body.data, ...next.body.data].map((a: { name: string }) => a.name)).toEqual([
      "Clemens Kirschbaum",
      "Clemens Kirschbaum",
    ]);
    const accented = await get("/api/v1/authors?name=uwe%20puhse");
    expect(accented.body.data.map((a: { id: string }) => a.id)).toContain(PUHSE.id);
    expect(accented.body.data[0].name).toBe("Uwe Pühse");
    // a word's start, from the words' index (work_author_words): "PÜH u" finds him, the middle of a word does not
    const prefix = await get(`/api/v1/authors?name=${encodeURIComponent("PÜH u")}`);
    expect(prefix.body.data.map((a: { id: string }) => a.id)).toContain(PUHSE.id);
    const middle = await get("/api/v1/authors?name=uhse");
    expect(middle.body.data.map((a: { id: string }) => a.id)).not.toContain(PUHSE.id);
    const foreignCursor = await get(`/api/v1/authors?name=puhse&cursor=${page.body.nextCursor}`);
    expect([foreignCursor.status, foreignCursor.body.error.code]).toEqual([422, "VALIDATION_ERROR"]);
    for (const bad of ["", "a", "%20.%20"]) {
      const res = await get(`/api/v1/authors?name=${bad}`);
      expect([res.status, res.body.error.code], bad).toEqual([422, "VALIDATION_ERROR"]);
    }
    const nul = await get("/api/v1/authors?name=kirsch%00baum");
    expect([nul.status, nul.body.error.code]).toEqual([422, "VALIDATION_ERROR"]);
  });

  it("refuses an attacker's limits and cursors, and reads SQL in a name as words", async () => {
    const works = `/api/v1/authors/${KIRSCHBAUM.id}/works`;
    const first = await get("/api/v1/authors?name=kirschbaum&limit=1");
    const refused = [
      ...["0", "101", "1e9", "-1", "2.5", "ten"].flatMap((n) => [
        `/api/v1/authors?name=kirschbaum&limit=${n}`,
        `${works}?limit=${n}`,
      ]),
      "/api/v1/authors?name=kirschbaum&name=stalder",
      `/api/v1/authors?name=${"kirschbaum".repeat(21)}`,
      `/api/v1/authors?name=kirschbaum&cursor=${"A".repeat(1001)}`,
      "/api/v1/authors?name=kirschbaum&cursor=bm90LWEtY3Vyc29y",
      `${works}?cursor=${encodeURIComponent(first.body.nextCursor)}`,
      `${works}?cursor=${Buffer.from(JSON.stringify(["author-works", KIRSCHBAUM.id, -5])).toString("base64url")}`,
      "/api/v1/authors?name=%25%25&limit=5",
      "/api/v1/authors?name=_%25_",
    ];
    for (const path of refused) {
      const res = await get(path);
      expect([res.status, res.body.error?.code], path).toEqual([422, "VALIDATION_ERROR"]);
    }
    // LIKE wildcards and quotes fold away: a name is its letters and digits, never a pattern or a statement
    for (const name of ["kirsch%' OR '1'='1", "kirschbaum'; DROP TABLE work_authors; --"]) {
      const res = await get(`/api/v1/authors?name=${encodeURIComponent(name)}`);
      expect([res.status, res.body.data], name).toEqual([200, []]);
    }
    const wildcards = await get(`/api/v1/authors?name=${encodeURIComponent("%kirsch%")}`);
    expect(wildcards.body.data).toEqual((await get("/api/v1/authors?name=kirsch")).body.data);
    expect(wildcards.body.data.map((a: { id: string }) => a.id)).toEqual(
      expect.arrayContaining([KIRSCHBAUM.id, KIRSCHBAUM.other]),
    );
    // a cursor past the end, however far, is an empty last page
    const far = Buffer.from(JSON.stringify(["author-works", KIRSCHBAUM.id, 1e15])).toString("base64url");
    const past = await get(`${works}?cursor=${far}`);
    expect([past.status, past.body.items, past.body.nextCursor]).toEqual([200, [], null]);
  });

  it("lists a person's works newest first, each once, through its cursor", async () => {
    const total = (seen.author as { worksCount: number }).worksCount;
    const items: Array<{ ids: { openalex: string }; publication_date: string | null; authorships: unknown[] }> = [];
    let cursor: string | null = null;
    do {
      const res = await get(
        `/api/v1/authors/${KIRSCHBAUM.id}/works?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.status).toBe(200);
      AuthorWorksPage.parse(res.body);
      expect(res.body.total).toBe(total);
      items.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(items).toHaveLength(total);
    expect(new Set(items.map((w) => w.ids.openalex)).size).toBe(total);
    const dates = items.map((w) => w.publication_date ?? "");
    expect(dates).toEqual([...dates].sort().reverse());
    for (const w of items) expect(w.authorships).toContainEqual(expect.objectContaining({ id: KIRSCHBAUM.id }));
    seen.works = items.map((w) => w.ids.openalex);
  });

  it("narrows a search to one person's work with author_id, on every spelling of the id", async () => {
    const works = new Set(seen.works as string[]);
    for (const id of [
      KIRSCHBAUM.id,
      `https://openalex.org/${KIRSCHBAUM.id}`,
      `https://orcid.org/${KIRSCHBAUM.orcid}`,
    ]) {
      const res = await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "openalex-synergy", query: "hair cortisol stress", limit: 20, filters: { author_id: id } },
      });
      expect(res.status, id).toBe(200);
      expect(res.body.results.length, id).toBeGreaterThan(0);
      for (const row of res.body.results as Array<{ metadata: Record<string, unknown> }>) {
        expect(works.has(row.metadata.doc_id as string), id).toBe(true);
        expect(row.metadata.author_id).toBeUndefined();
        expect(row.metadata.authorships).toContainEqual(expect.objectContaining({ orcid: KIRSCHBAUM.orcid }));
      }
    }
    const bad = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-synergy", query: "hair cortisol", filters: { author_id: "Clemens Kirschbaum" } },
    });
    expect([bad.status, bad.body.error.code]).toEqual([422, "INVALID_FILTER"]);
    expect(bad.body.error.message).toMatch(/OpenAlex author id/);
  });

  it("answers 404 naming an author_id filtered on that no reachable collection holds, taking nothing", async () => {
    const [quota, lines] = [await dailyUsed(), await ledgerLines()];
    const asked = [
      ["/api/v1/search/query", { query: "hair cortisol", filters: { author_id: "A999999999" } }, "A999999999"],
      [
        "/api/v1/search/query",
        { query: "hair cortisol", filters: { author_id: [KIRSCHBAUM.id, "0000-0002-1825-0097"] } },
        "0000-0002-1825-0097",
      ],
      ["/api/v1/search/preview", { query: "hair cortisol", filters: { author_id: "A999999999" } }, "A999999999"],
      [
        "/api/v1/works/facets",
        { facets: ["publication_year"], filters: { author_id: "https://openalex.org/A999999999" } },
        "A999999999",
      ],
      ["/api/v1/search/assisted", { query: "hair cortisol", filters: { author_id: "A999999999" } }, "A999999999"],
      [
        "/api/v1/alerts",
        { query: "hair cortisol", filters: { author_id: "0000-0002-1825-0097" } },
        "0000-0002-1825-0097",
      ],
    ] as const;
    for (const [path, body, id] of asked) {
      const res = await call("POST", path, { key, body: { collection: "openalex-synergy", ...body } });
      expect([res.status, res.body.error?.code], path).toEqual([404, "AUTHOR_NOT_FOUND"]);
      expect(res.body.error.message, path).toContain(id);
      expect(res.body.error.details.field, path).toBe("author_id");
      // the way to the id, for a REST client and an agent alike
      expect(res.body.error.message, path).toMatch(/GET \/api\/v1\/authors\?name=.*find_authors/);
    }
    expect([await dailyUsed(), await ledgerLines()]).toEqual([quota, lines]);
    // the alert refused is not kept: none was created
    expect((await get("/api/v1/alerts")).body.data).toEqual([]);
    // a person the key reaches, narrowed to a collection without their work: an empty answer, not a 404
    const elsewhere = await call("POST", "/api/v1/works/facets", {
      key,
      body: { collection: "scifact", facets: ["publication_year"], filters: { author_id: KIRSCHBAUM.id } },
    });
    expect([elsewhere.status, elsewhere.body.total]).toEqual([200, 0]);
  });

  it("refuses malformed and unknown ids, no key, another key's collections and other path spellings", async () => {
    for (const bad of ["W2125158795", "0000-0003-3707-4445", "Clemens%20Kirschbaum", "A12-", "orcid:1234"]) {
      const res = await author(bad);
      expect([res.status, res.body.error.code], bad).toEqual([422, "VALIDATION_ERROR"]);
      expect(res.body.error.message, bad).toMatch(/OpenAlex author id .* or an ORCID/);
    }
    const unknown = await author("A999999999");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "AUTHOR_NOT_FOUND"]);
    expect(unknown.body.error.message).toContain("A999999999");
    const unknownOrcid = await get("/api/v1/authors/0000-0002-1825-0097/works");
    expect([unknownOrcid.status, unknownOrcid.body.error.code]).toEqual([404, "AUTHOR_NOT_FOUND"]);
    expect(unknownOrcid.body.error.message).toContain("ORCID 0000-0002-1825-0097");
    expect((await author(KIRSCHBAUM.id, "")).status).toBe(401);
    expect((await get("/api/v1/authors?name=kirschbaum", "")).status).toBe(401);

    const scoped = await operatorSteps(call, svc.adminToken).customer({ credits: "1.00", collections: ["scifact"] });
    const elsewhere = await author(KIRSCHBAUM.id, scoped.key);
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, "AUTHOR_NOT_FOUND"]);
    expect((await get(`/api/v1/authors/${KIRSCHBAUM.id}/works`, scoped.key)).status).toBe(404);
    expect((await get("/api/v1/authors?name=kirschbaum", scoped.key)).body.data).toEqual([]);
    const filtered = await call("POST", "/api/v1/search/query", {
      key: scoped.key,
      body: { collection: "scifact", query: "cortisol", filters: { author_id: KIRSCHBAUM.id } },
    });
    expect([filtered.status, filtered.body.error.code]).toEqual([404, "AUTHOR_NOT_FOUND"]);
    const digestOnly = await operatorSteps(call, svc.adminToken).customer({
      credits: "1.00",
      collections: ["clinical-digest"],
    });
    expect((await author(MEDLINE_ORCIDS[0]!, digestOnly.key)).body.collections).toEqual(["clinical-digest"]);

    for (const path of [
      `/api/v1/authors/${KIRSCHBAUM.id}/`,
      `/api/v1/authors//${KIRSCHBAUM.id}`,
      `/api/v1/authors/x/../${KIRSCHBAUM.id}`,
      `/api/v1/authors/${KIRSCHBAUM.id}%00`,
      `/api/v1/authors/https:///openalex.org/${KIRSCHBAUM.id}`,
      `/api/v1/Authors/${KIRSCHBAUM.id}`,
      `/api/v1/authors/${KIRSCHBAUM.id}/works/`,
    ]) {
      const res = await rawRequest(svc.baseUrl, "GET", path, { Authorization: `Bearer ${key}` });
      expect(res.status, path).toBeLessThan(500);
      expect(res.status, path).not.toBe(200);
      expect(res.body.error.requestId, path).toEqual(expect.any(String));
    }
  });

  it("gives a sandbox key a synthetic author and no works", async () => {
    const org = await call("POST", "/admin/v1/organizations", { admin: svc.adminToken, body: { name: "Sandbox" } });
    const test = await call("POST", `/admin/v1/organizations/${org.body.id}/keys`, {
      admin: svc.adminToken,
      body: { mode: "test" },
    });
    const res = await author(KIRSCHBAUM.id, test.body.key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ synthetic: true, worksCount: 0, collections: [] });
    expect(res.body.name).not.toBe("Clemens Kirschbaum");
    const works = await get(`/api/v1/authors/${KIRSCHBAUM.id}/works`, test.body.key);
    expect([works.status, works.body.items]).toEqual([200, []]);
    expect((await get("/api/v1/authors?name=kirschbaum", test.body.key)).body.data).toEqual([]);
    expect((await author("W1", test.body.key)).status).toBe(422);
  });

  it("answers an agent through MCP as REST does", async () => {
    const client = new Client({ name: "authors-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const found = await client.callTool({ name: "find_authors", arguments: { name: "kirschbaum" } });
      const listed = JSON.parse((found.content as Array<{ text: string }>)[0]!.text);
      expect(listed.data.map((a: { id: string }) => a.id)).toContain(KIRSCHBAUM.id);
      const one = await client.callTool({
        name: "get_author",
        arguments: { id: `https://orcid.org/${KIRSCHBAUM.orcid}` },
      });
      const profile = JSON.parse((one.content as Array<{ text: string }>)[0]!.text);
      expect(profile).toMatchObject({
        name: "Clemens Kirschbaum",
        worksCount: (seen.author as { worksCount: number }).worksCount,
      });
      const works = await client.callTool({ name: "get_author", arguments: { id: KIRSCHBAUM.id, works: true } });
      const page = JSON.parse((works.content as Array<{ text: string }>)[0]!.text);
      expect(page.items.length).toBeGreaterThan(0);
      const bad = await client.callTool({ name: "get_author", arguments: { id: "W1" } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("both engines", () => {
  it("answer the same person", () => {
    if (!answers.embedded?.author || !answers.opensearch?.author) throw new Error("an engine's run did not answer");
    expect(answers.opensearch.author).toEqual(answers.embedded.author);
    expect(answers.opensearch.works).toEqual(answers.embedded.works);
  });
});
