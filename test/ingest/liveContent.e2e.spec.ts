// Live content on the real service (Temporal, PGlite, the embedding model; the embedded engine and OpenSearch): a
// retraction list loaded while the service runs takes a work out of the results and into retractions/check, a bad list
// changes nothing; a collection read by the jsonl reader is searched with a filter on one of its metadata fields.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENGINES,
  sliceDataRoot,
  startWithCustomer,
  type httpClient,
  type TestService,
} from "../support/testService.js";
import { OPENALEX_SLICE, plainCollection, writeCollectionsConfig, writeJsonl } from "../support/operatorContent.js";
import { createLiveRetractions } from "../../src/ingest/liveRetractions.js";

/** the first OpenAlex work of the test slice (in openalex-synergy, in no shipped retraction list) */
const WORK = { doi: "10.1530/eje.0.1410619", query: "Pheochromocytoma in Italy: a multicentric retrospective study" };
/** the second one: named by the good file of a refused load, so it must stay */
const OTHER_DOI = "10.1212/01.wnl.0000033622.27961.b6";

const openRetraction = (doi: string) =>
  JSON.stringify({
    retracted: true,
    timestamp: Date.parse("2026-11-20"),
    updates: [{ identifier: { doi: `10.9999/notice.${doi.length}` }, type: "retraction" }],
    identifier: { doi: doi.toUpperCase() },
  });

const REEF_NOTES = [
  {
    id: "reef-1",
    title: "Coral bleaching on the northern reef, 2016 survey",
    text: "Coral bleaching followed the marine heatwave; most reef flats lost their symbionts within weeks.",
    journal: "Reef Field Notes",
    publication_date: "2016-05-01",
    keywords: ["coral", "bleaching"],
  },
  {
    id: "reef-2",
    title: "Coral bleaching recovery after the 2023 heatwave",
    sections: [
      { title: "Methods", text: "Transects of coral cover were repeated monthly." },
      { title: "Results", text: "Coral bleaching recovery was slower on shallow reef flats." },
    ],
    journal: "Reef Field Notes",
    publication_date: "2023-09",
    doi: "10.5555/reef.2023",
  },
  {
    id: "reef-3",
    title: "Seagrass meadows and dugong grazing",
    text: "Dugongs graze seagrass meadows in rotation.",
    publication_date: "2022",
  },
];

function collectionsConfig(dataRoot: string): string {
  writeJsonl(dataRoot, "reef-notes.jsonl", REEF_NOTES);
  return writeCollectionsConfig([
    OPENALEX_SLICE,
    plainCollection("reef-notes", "jsonl", ["reef-notes.jsonl"], {
      displayName: "Reef notes",
      description: "an operator corpus in JSON lines",
    }),
  ]);
}

describe.each(ENGINES)("live content on the %s engine", (engine) => {
  let svc: TestService;
  let dataRoot: string;
  let call: ReturnType<typeof httpClient>;
  let key: string;

  beforeAll(async () => {
    dataRoot = await sliceDataRoot();
    ({ svc, call, key } = await startWithCustomer(
      { dataRoot, collectionsConfig: collectionsConfig(dataRoot), engine },
      "50.00",
    ));
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
  });

  const dois = async (query: string) => {
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-synergy", query, limit: 10 },
    });
    expect(res.status).toBe(200);
    return (res.body.results as { metadata: { doi?: string } }[]).map((r) => r.metadata.doi);
  };
  const check = async (doi: string) =>
    (await call("POST", "/api/v1/tools/retractions/check", { key, body: { dois: [doi] } })).body.results[0];
  const load = (files: string[]) => call("POST", "/admin/v1/retractions", { admin: svc.adminToken, body: { files } });

  it("refuses a bad list with 422 naming the file, and changes nothing", async () => {
    writeFileSync(join(dataRoot, "good.jsonl"), openRetraction(OTHER_DOI) + "\n");
    writeFileSync(join(dataRoot, "broken.jsonl"), openRetraction(OTHER_DOI) + '\n{"retracted": tru\n');
    writeFileSync(join(dataRoot, "not-rw.csv"), "title,doi\nA,10.1/x\n");
    for (const [files, named] of [
      [["good.jsonl", "missing.csv"], "missing.csv"],
      [["good.jsonl", "broken.jsonl"], "broken.jsonl"],
      [["not-rw.csv"], "not-rw.csv"],
    ] as const) {
      const res = await load([...files]);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.message).toContain(`"${named}"`);
      expect(res.body.error.requestId).toEqual(expect.any(String));
      expect(res.body.error.message).not.toContain('"retracted": tru'); // the file's text is not echoed
    }
    expect(await check(OTHER_DOI)).toMatchObject({ status: "not_retracted", retracted: false });
    expect(await createLiveRetractions({ db: svc.runtime.db, dataRoot }).addedDois()).toEqual([]);
    expect((await call("POST", "/admin/v1/retractions", { key, body: { files: ["good.jsonl"] } })).status).toBe(401);
  });

  it("takes a newly retracted work out of the results and answers retractions/check from the new list", async () => {
    expect(await dois(WORK.query)).toContain(WORK.doi);
    expect(await check(WORK.doi)).toEqual({
      input: WORK.doi,
      doi: WORK.doi,
      status: "not_retracted",
      retracted: false,
    });
    const lookup = () => call("POST", "/api/v1/tools/works/lookup", { key, body: { doi: WORK.doi } });
    expect((await lookup()).body.collections).toEqual(["openalex-synergy"]);

    writeFileSync(join(dataRoot, "retractions-2026-11-26.jsonl"), openRetraction(WORK.doi) + "\n");
    const loaded = await load(["retractions-2026-11-26.jsonl", "retractions/retraction_watch_etl_sampled.csv"]);
    expect(loaded.status).toBe(200);
    expect(loaded.body).toMatchObject({
      version: 1,
      files: ["retractions-2026-11-26.jsonl", "retractions/retraction_watch_etl_sampled.csv"],
      newlyRetracted: 1,
    });
    expect(loaded.body.listed).toBeGreaterThan(4000);

    const after = await dois(WORK.query);
    expect(after).not.toContain(WORK.doi);
    expect(after.length).toBeGreaterThan(0);
    expect(await check(WORK.doi)).toMatchObject({
      doi: WORK.doi,
      retracted: true,
      notice: { source: "open_retractions", date: "2026-11-20", notice_type: "retraction" },
    });
    // works/lookup agrees with search: the collection no longer holds the retracted work
    const gone = await lookup();
    expect([gone.status, gone.body.error?.code]).toEqual([422, "TOOL_ERROR"]);

    // another process on the same store (the scaled shape) reads the same list from the event
    const elsewhere = createLiveRetractions({ db: svc.runtime.db, dataRoot });
    expect(await elsewhere.addedDois()).toEqual([WORK.doi]);
    expect((await elsewhere.notices()).get(WORK.doi)?.date).toBe("2026-11-20");
    // a work no collection holds is on the list (retractions/check) but not in every search's filter
    writeFileSync(join(dataRoot, "retractions-unheld.jsonl"), openRetraction("10.5555/held.by.no.collection") + "\n");
    expect((await load(["retractions-unheld.jsonl"])).body).toMatchObject({ version: 2, newlyRetracted: 1 });
    expect(await check("10.5555/held.by.no.collection")).toMatchObject({ retracted: true });
    const filter = (await createLiveRetractions({ db: svc.runtime.db, dataRoot }).exclusionFilter()) as {
      child: { values: string[] };
    };
    expect(filter.child.values).toEqual([WORK.doi]);
    // the load is an event the replay passes over and the chain covers
    expect((await call("POST", "/admin/v1/replay", { admin: svc.adminToken })).status).toBe(200);
    expect((await call("GET", "/admin/v1/verify", { admin: svc.adminToken })).body.ok).toBe(true);
  });

  it("searches a jsonl collection with a filter on one of its metadata fields", async () => {
    const search = (filters?: unknown) =>
      call("POST", "/api/v1/search/query", {
        key,
        body: {
          collection: "reef-notes",
          query: "coral bleaching on reefs",
          limit: 10,
          ...(filters ? { filters } : {}),
        },
      });
    const all = await search();
    expect(all.status).toBe(200);
    const ids = (all.body.results as { metadata: { doc_id?: string; title: string } }[]).map((r) => r.metadata.title);
    expect(ids).toEqual(expect.arrayContaining([REEF_NOTES[0]!.title, REEF_NOTES[1]!.title]));
    const recent = await search({ publication_date: { gte: "2020" } });
    expect(recent.status).toBe(200);
    const rows = recent.body.results as { metadata: Record<string, unknown> }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.metadata.title))).not.toContain(REEF_NOTES[0]!.title);
    const reef2 = rows.find((r) => r.metadata.title === REEF_NOTES[1]!.title);
    expect(reef2?.metadata).toMatchObject({
      journal: "Reef Field Notes",
      publication_date: "2023-09",
      doi: "10.5555/reef.2023",
    });
    expect(["methods", "results"]).toContain(reef2?.metadata.section);
  });

  it("refuses a value a 32-bit integer field cannot hold: 422 INVALID_FILTER naming the field, here too", async () => {
    for (const bound of [{ gt: 3_000_000_000 }, { lt: 1e308 }, { gte: -1e20 }]) {
      const res = await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "reef-notes", query: "coral bleaching", filters: { field: "chapter_number", ...bound } },
      });
      expect([res.status, res.body.error.code, res.body.error.details.field]).toEqual([
        422,
        "INVALID_FILTER",
        "chapter_number",
      ]);
    }
    const fits = await call("POST", "/api/v1/search/query", {
      key,
      body: {
        collection: "reef-notes",
        query: "coral bleaching",
        filters: { field: "chapter_number", lt: 2 ** 31 - 1 },
      },
    });
    expect(fits.status).toBe(200);
  });
});
