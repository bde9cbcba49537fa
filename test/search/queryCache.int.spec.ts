// Query records on both stores: the payload is written deflated and read back equal; a record written before that
// (a JSONB payload) still reads until it expires.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import {
  loadQueryRecord,
  PAYLOAD_VERSION,
  saveQueryRecord,
  type QueryRecord,
} from "../../src/usecases/search/queryCache.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";

const record: QueryRecord = {
  queryId: "q-1",
  orgId: "org-1",
  keyId: "key-1",
  kind: "preview",
  payloadVersion: PAYLOAD_VERSION,
  createdAt: new Date("2026-11-20T10:00:00.000Z"),
  payload: {
    query: "insulin resistance in adipose tissue",
    collections: ["scifact"],
    rows: Array.from({ length: 10 }, (_, i) => ({
      id: `chunk-${i}`,
      collection: "scifact",
      physical: "scifact",
      text: `Résumé ${i}: ${"insulin signalling in adipocytes ".repeat(40)}`,
      teaser: "Résumé...",
      metadata: {
        doc_id: `doc-${i}`,
        title: `Title ${i}`,
        doi: `10.1000/${i}`,
        chunk_index: i,
        authors: ["A. Author"],
      },
      relevance: 0.5 + i / 100,
      tokens: 230,
      costMicros: "6900",
      pricePer1000Micros: "30000",
      figureCount: 0,
    })),
    filterWarnings: [],
  },
};

describe.each(STORE_KINDS)("query records on %s", (kind) => {
  let db: Db;
  beforeEach(async () => {
    db = await freshStore(kind);
  });
  afterEach(async () => {
    await db?.close();
  });

  it("stores the payload deflated and reads back exactly what was saved", async () => {
    await saveQueryRecord(db, record);
    expect(await loadQueryRecord(db, record.queryId)).toEqual(record);
    const [stored] = await db.query<{ deflated: number; json: boolean }>(
      "SELECT octet_length(payload_deflated) AS deflated, payload IS NULL AS json FROM query_records",
    );
    expect(stored!.deflated).toBeLessThan(JSON.stringify(record.payload).length / 3);
    expect(stored!.json).toBe(true);
    expect(await loadQueryRecord(db, "unknown")).toBeUndefined();
  });

  it("still reads a record written with a JSONB payload", async () => {
    await db.query(
      "INSERT INTO query_records (query_id, org_id, key_id, kind, payload_version, created_at, payload) VALUES " +
        "($1, $2, $3, $4, $5, $6, $7)",
      [
        record.queryId,
        record.orgId,
        record.keyId,
        record.kind,
        record.payloadVersion,
        record.createdAt.toISOString(),
        JSON.stringify(record.payload),
      ],
    );
    expect(await loadQueryRecord(db, record.queryId)).toEqual(record);
  });
});
