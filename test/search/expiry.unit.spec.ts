// The 7-day expiry refusal has one home (queryCache.assertFresh): a re-fetch and an unlock's charge both refuse by it.
import { describe, expect, it } from "vitest";
import { assertFresh, PAYLOAD_VERSION, type QueryRecord } from "../../src/usecases/search/queryCache.js";
import { Rejection } from "../../src/domain/rejection.js";

const DAY = 24 * 3600 * 1000;
const createdAt = new Date("2026-01-01T00:00:00Z");
const record = (payloadVersion = PAYLOAD_VERSION) => ({ queryId: "q-1", createdAt, payloadVersion }) as QueryRecord;
const refusal = (r: QueryRecord, now: Date, again: "search" | "preview") => {
  try {
    assertFresh(r, now, again);
    return null;
  } catch (err) {
    return err instanceof Rejection ? { code: err.code, message: err.message } : err;
  }
};

describe("the expiry refusal", () => {
  it("lets a record through until the end of its 7th day, and refuses it from then on", () => {
    expect(refusal(record(), new Date(createdAt.getTime() + 7 * DAY - 1), "search")).toBeNull();
    expect(refusal(record(), new Date(createdAt.getTime() + 7 * DAY), "search")).toMatchObject({
      code: "CACHED_RESULT_EXPIRED",
      message: expect.stringMatching(/query q-1 has expired .*kept 7 days.*run the search again$/),
    });
  });

  it("refuses a record written in an older result format at once, naming what to run again", () => {
    expect(refusal(record(PAYLOAD_VERSION - 1), createdAt, "preview")).toMatchObject({
      code: "CACHED_RESULT_EXPIRED",
      message: expect.stringMatching(/run the preview again$/),
    });
  });
});
