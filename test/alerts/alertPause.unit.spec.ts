// Alerts follow their collections, the pure rules: which retired collection pauses an alert and what its owner is
// told, who is sent `alert.paused`, when a collection was retired (the catalogue's fold), and the 404 a search of a
// retired collection answers.
import { describe, expect, it } from "vitest";
import { pausedMessage, retiredReason } from "../../src/usecases/alerts/alertRules.js";
import { subscribesTo } from "../../src/domain/webhooks.js";
import { emptyCatalogue, evolveCatalogue } from "../../src/domain/catalogueStream.js";
import { retiredCollection } from "../../src/usecases/auth/keyScope.js";

describe("an alert on a retired collection", () => {
  const retired = (name: string) =>
    name.toLowerCase() === "old-notes" ? { name: "old-notes", at: "2026-11-29T08:00:00.000Z" } : null;

  it("is paused for the first collection it names that was retired, whatever its case", () => {
    expect(retiredReason({ collections: ["scifact", "Old-Notes"] }, retired)).toEqual({
      code: "COLLECTION_RETIRED",
      collection: "old-notes",
      retiredAt: "2026-11-29T08:00:00.000Z",
    });
    expect(retiredReason({ collections: ["scifact"] }, retired)).toBeNull();
  });

  it("tells its owner which collection, when, and what to do", () => {
    const message = pausedMessage({ code: "COLLECTION_RETIRED", collection: "old-notes", retiredAt: "2026-11-29" });
    expect(message).toContain('"old-notes" was retired on 2026-11-29');
    expect(message).toMatch(/^Paused: .*Delete it, and create an alert on a collection you can search/);
    const reason = { code: "COLLECTION_RETIRED", collection: "old-notes", retiredAt: "2026-11-29" } as const;
    expect(pausedMessage(reason, "cannot resume")).toMatch(/^cannot resume: collection "old-notes" was retired/);
  });

  it("is told to the endpoints that take alert.paused, and to those that take alert.matched", () => {
    expect(subscribesTo(["alert.paused"], "alert.paused")).toBe(true);
    expect(subscribesTo(["alert.matched"], "alert.paused")).toBe(true);
    expect(subscribesTo(["balance.low"], "alert.paused")).toBe(false);
    expect(subscribesTo(["alert.paused"], "alert.matched")).toBe(false);
  });
});

describe("a retired collection", () => {
  it("is remembered with the time its retirement was recorded", () => {
    const state = emptyCatalogue();
    evolveCatalogue(state, {
      type: "CollectionRetired",
      data: { name: "old-notes" },
      recordedAt: "2026-11-29T08:00:00.000Z",
    });
    expect([...state.retired]).toEqual(["old-notes"]);
    expect(state.retiredAt.get("old-notes")).toBe("2026-11-29T08:00:00.000Z");
  });

  it("answers a search 404 COLLECTION_NOT_FOUND saying it was retired, when, and what to search instead", () => {
    const rejection = retiredCollection({ name: "old-notes", at: "2026-11-29T08:00:00.000Z" }, ["scifact"]);
    expect(rejection.code).toBe("COLLECTION_NOT_FOUND");
    expect(rejection.message).toBe(
      'collection "old-notes" was retired on 2026-11-29T08:00:00.000Z and can no longer be searched; search one of ' +
        '"scifact" instead, or GET /api/v1/search/collections (MCP: list_collections) lists the ones you can search',
    );
    expect(rejection.details).toEqual({
      collection: "old-notes",
      retired: true,
      retiredAt: "2026-11-29T08:00:00.000Z",
    });
  });
});
