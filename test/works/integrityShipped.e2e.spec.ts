// Integrity on the shipped data, through the API, on both engines: every work any source flags (OpenAlex is_retracted,
// MEDLINE's retraction, erratum and concern records, the Crossref update records, Retraction Watch) is listed from the
// files themselves, here, without the service's readers, and each one the collections hold answers its status on
// works/{id}; a retracted one is out of search and a searched row reads the status its work reads, and the retraction
// check, a pinned DOI's warning and works/lookup say it is retracted. One rule: what search excludes is exactly what
// integrity calls retracted.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENGINES,
  operatorSteps,
  SHARED_DATA,
  startWithCustomer,
  type httpClient,
  type TestService,
} from "../support/testService.js";
import { plainCollection, writeCollectionsConfig } from "../support/operatorContent.js";

type Status = "none" | "corrected" | "expression_of_concern" | "withdrawn" | "retracted";

/** What the files say of one work: the sources that flag it retracted, and the kinds of notice recorded about it. */
interface Flagged {
  id: string;
  collection: string;
  title: string;
  /** whether it has text to search (an abstract); one without is held as a record only */
  text: boolean;
  retractedBy: Set<string>;
  kinds: Set<string>;
}

const OPENALEX_FILE = "articles/openalex_works.synergy.jsonl.gz";
const MEDLINE_FILE = "articles/pubmed_medline16n0902_sample.xml.gz";

/**
 * The expected status, stated independently of the service: retracted when a source flags it, then withdrawn, then
 * concern, ...
 */
function expectedStatus(f: Flagged): Status {
  if (f.retractedBy.size > 0) return "retracted";
  if ([...f.kinds].some((k) => /withdraw|remov/.test(k))) return "withdrawn";
  if ([...f.kinds].some((k) => /concern/.test(k))) return "expression_of_concern";
  if ([...f.kinds].some((k) => /retract|correct|corrigend|errat/.test(k))) return "corrected";
  return "none";
}

/** Every work of the shipped files some source says something of. */
function flaggedWorks(): Flagged[] {
  const read = (file: string) => readFileSync(join(SHARED_DATA, file));
  // the update lists by DOI: Crossref records (retracted flag, update types) and Retraction Watch rows
  const listKinds = new Map<string, Set<string>>();
  const listRetracted = new Map<string, Set<string>>();
  const note = (doi: string, kind: string, retractedBy?: string) => {
    const d = doi.toLowerCase().replace(/^https?:\/\/(dx\.)?doi\.org\//, "");
    listKinds.set(d, (listKinds.get(d) ?? new Set()).add(kind.toLowerCase()));
    if (retractedBy) listRetracted.set(d, (listRetracted.get(d) ?? new Set()).add(retractedBy));
  };
  for (const line of gunzipSync(read("retractions/open_retractions.all_updates.jsonl.gz")).toString().split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { retracted: boolean; identifier: { doi?: string }; updates?: { type?: string }[] };
    if (!r.identifier.doi) continue;
    for (const u of r.updates ?? []) note(r.identifier.doi, u.type ?? "update");
    if (r.retracted) note(r.identifier.doi, "retraction", "crossref");
  }
  const rw = parse(read("retractions/retraction_watch_etl_sampled.csv"), { columns: true }) as Record<string, string>[];
  for (const row of rw)
    if (row.originalpaperdoi)
      note(row.originalpaperdoi, row.retractionnature!, row.retractionnature === "Retraction" ? "rw" : undefined);

  const flagged: Flagged[] = [];
  const fromLists = (f: Flagged, doi: string | null) => {
    if (!doi) return;
    for (const k of listKinds.get(doi) ?? []) f.kinds.add(k);
    for (const s of listRetracted.get(doi) ?? []) f.retractedBy.add(s);
  };
  for (const line of gunzipSync(read(OPENALEX_FILE)).toString().split("\n")) {
    if (!line.trim()) continue;
    const w = JSON.parse(line) as {
      id: string;
      doi?: string | null;
      title?: string | null;
      is_retracted?: boolean;
      abstract_inverted_index?: Record<string, number[]> | null;
    };
    const doi = w.doi ? w.doi.toLowerCase().replace("https://doi.org/", "") : null;
    const f: Flagged = {
      id: doi ?? w.id.replace("https://openalex.org/", ""),
      collection: "openalex-all",
      title: w.title ?? "",
      text: Object.keys(w.abstract_inverted_index ?? {}).length > 0,
      retractedBy: new Set(w.is_retracted ? ["openalex"] : []),
      // a record titled "WITHDRAWN: ..." is an article in press its publisher took back
      kinds: new Set([
        ...(w.is_retracted ? ["retraction"] : []),
        ...(/^\s*withdrawn\s*:/i.test(w.title ?? "") ? ["withdrawal"] : []),
      ]),
    };
    fromLists(f, doi);
    if (f.kinds.size > 0) flagged.push(f);
  }
  const xml = gunzipSync(read(MEDLINE_FILE)).toString();
  for (const record of xml.split("<MedlineCitation ").slice(1)) {
    const pmid = /<PMID[^>]*>(\d+)<\/PMID>/.exec(record)![1]!;
    const doi = /<ELocationID EIdType="doi"[^>]*>([^<]+)</.exec(record)?.[1]?.toLowerCase() ?? null;
    const types = [...record.matchAll(/<PublicationType[^>]*>([^<]+)</g)].map((m) => m[1]!);
    const links = [...record.matchAll(/RefType="(\w+)"/g)].map((m) => m[1]!);
    const f: Flagged = {
      id: `pmid:${pmid}`,
      collection: "medline-all",
      title: /<ArticleTitle>([\s\S]*?)<\/ArticleTitle>/.exec(record)?.[1] ?? "",
      text: /<AbstractText/.test(record),
      retractedBy: new Set(
        types.includes("Retracted Publication") || links.includes("RetractionIn") ? ["medline"] : [],
      ),
      kinds: new Set(
        links.flatMap((l) =>
          l === "RetractionIn"
            ? ["retraction"]
            : l === "ErratumIn"
              ? ["erratum"]
              : /ConcernIn$/.test(l)
                ? ["concern"]
                : [],
        ),
      ),
    };
    if (f.retractedBy.size > 0) f.kinds.add("retraction");
    fromLists(f, doi);
    if (f.kinds.size > 0) flagged.push(f);
  }
  return flagged;
}

describe.each(ENGINES)("integrity of the shipped data on the %s engine", (engine) => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let key: string;
  const flagged = flaggedWorks();

  beforeAll(async () => {
    const collections = [
      plainCollection("openalex-all", "openalex", [OPENALEX_FILE], { retrieval: "sparse", scanFilterable: false }),
      plainCollection("medline-all", "medline", [MEDLINE_FILE], { retrieval: "sparse", scanFilterable: false }),
    ];
    ({ svc, call, key } = await startWithCustomer(
      { dataRoot: SHARED_DATA, collectionsConfig: writeCollectionsConfig(collections), engine },
      "50.00",
    ));
  }, 900_000);

  afterAll(async () => {
    await svc?.close();
  });

  it("finds works of every source in the files (the list below is not empty of any)", () => {
    const sources = new Set(flagged.flatMap((f) => [...f.retractedBy]));
    expect([...sources].sort()).toEqual(expect.arrayContaining(["openalex"]));
    expect(flagged.filter((f) => f.collection === "openalex-all" && f.retractedBy.has("openalex"))).toHaveLength(3);
    expect(flagged.some((f) => f.collection === "medline-all" && f.kinds.has("erratum"))).toBe(true);
    expect(flagged.filter((f) => f.text).length).toBeGreaterThan(30);
    // the article in press Elsevier withdrew, which no list names: its record's title says so
    expect(flagged.filter((f) => f.kinds.has("withdrawal")).map((f) => f.id)).toContain(
      "10.1016/j.psyneuen.2015.07.575",
    );
  });

  it("answers every flagged work's status on works/{id}, each notice naming its source", async () => {
    const wrong: string[] = [];
    for (const f of flagged) {
      const res = await call("GET", `/api/v1/works/${encodeURIComponent(f.id)}`, { key });
      // in search exactly when it has text and is not retracted; every record is a work either way
      if (res.status === 200 && res.body.searchable !== (f.text && expectedStatus(f) !== "retracted"))
        wrong.push(`${f.id}: searchable ${res.body.searchable}, with text ${f.text}`);
      const status = res.body.integrity?.status;
      if (res.status !== 200 || status !== expectedStatus(f))
        wrong.push(`${f.id}: ${res.status} ${status}, expected ${expectedStatus(f)} (${[...f.kinds].join(", ")})`);
      for (const n of res.body.integrity?.notices ?? [])
        if (!["openalex", "medline", "crossref", "retraction_watch"].includes(n.source))
          wrong.push(`${f.id}: a notice without its source: ${JSON.stringify(n)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("answers the works the customer reported retracted, with OpenAlex's notice", async () => {
    for (const doi of ["10.1002/jcb.27143", "10.3390/jcm9041025"]) {
      const res = await call("GET", `/api/v1/works/${encodeURIComponent(doi)}`, { key });
      expect(res.status, doi).toBe(200);
      expect(res.body.integrity).toEqual({
        status: "retracted",
        notices: [{ type: "retraction", source: "openalex", doi: null, pmid: null, date: null }],
        listsChecked: true,
      });
    }
  });

  it("says a held retracted work is retracted wherever asked: the check tool, a pinned DOI, works/lookup", async () => {
    const retracted = flagged.filter((f) => f.retractedBy.size > 0 && !f.id.startsWith("pmid:"));
    expect(retracted.length).toBeGreaterThanOrEqual(3);
    const checked = await call("POST", "/api/v1/tools/retractions/check", {
      key,
      body: { dois: [...retracted.map((f) => f.id), "10.1530/eje.0.1410619"] },
    });
    expect(checked.status).toBe(200);
    const results = checked.body.results as { doi: string; retracted: boolean; notice?: { source: string } }[];
    expect(results.filter((r) => !r.retracted).map((r) => r.doi)).toEqual(["10.1530/eje.0.1410619"]);
    const openalexOnly = results.find((r) => r.doi === "10.1002/jcb.27143");
    expect(openalexOnly?.notice).toMatchObject({ source: "openalex", notice_type: "retraction", reasons: [] });
    // a key that reaches only MEDLINE learns nothing of what the OpenAlex collection holds
    const medlineKey = (
      await operatorSteps(call, svc.adminToken).customer({ credits: "1.00", collections: ["medline-all"] })
    ).key;
    const scoped = await call("POST", "/api/v1/tools/retractions/check", {
      key: medlineKey,
      body: { dois: ["10.1002/jcb.27143"] },
    });
    expect(scoped.body.results).toEqual([
      { input: "10.1002/jcb.27143", doi: "10.1002/jcb.27143", status: "unknown", retracted: null },
    ]);
    for (const f of retracted.slice(0, 3)) {
      const pinned = await call("POST", "/api/v1/search/preview", {
        key,
        body: { collection: f.collection, query: "outcomes", limit: 3, filters: { doi: f.id } },
      });
      expect([pinned.status, pinned.body.results.length], f.id).toEqual([200, 0]);
      expect(pinned.body.filterWarnings, f.id).toEqual([
        expect.objectContaining({ code: "doi_not_in_collection", doi: f.id, reason: "retracted" }),
      ]);
      const lookup = await call("POST", "/api/v1/tools/works/lookup", { key, body: { doi: f.id } });
      expect([lookup.status, lookup.body.error?.code], f.id).toEqual([422, "TOOL_ERROR"]);
      expect(lookup.body.error.message, f.id).toContain("is retracted");
    }
    // a DOI no collection holds is still "not held"
    const nowhere = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "openalex-all", query: "outcomes", limit: 3, filters: { doi: "10.9999/not.held.anywhere" } },
    });
    expect(nowhere.body.filterWarnings).toEqual([expect.objectContaining({ reason: "not_held" })]);
  });

  it("keeps exactly the retracted ones out of search, and a searched row reads its work's status", async () => {
    const wrong: string[] = [];
    for (const f of flagged.filter((x) => x.text)) {
      const res = await call("POST", "/api/v1/search/preview", {
        key,
        body: { collection: f.collection, query: f.title.replace(/<[^>]+>/g, "").slice(0, 200), limit: 10 },
      });
      expect(res.status, f.id).toBe(200);
      const rows = (
        res.body.results as { metadata: { doi?: string; pmid?: string; integrity: { status: string } } }[]
      ).filter((r) => (f.id.startsWith("pmid:") ? `pmid:${r.metadata.pmid}` : r.metadata.doi) === f.id);
      if (expectedStatus(f) === "retracted") {
        if (rows.length > 0) wrong.push(`${f.id}: retracted, yet searched`);
      } else if (rows.length === 0) wrong.push(`${f.id}: not retracted, yet not found by its title`);
      for (const r of rows)
        if (r.metadata.integrity.status !== expectedStatus(f))
          wrong.push(`${f.id}: row reads ${r.metadata.integrity.status}, expected ${expectedStatus(f)}`);
    }
    expect(wrong).toEqual([]);
  });
});
