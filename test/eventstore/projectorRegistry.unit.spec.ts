// The projection registry runs the feature projectors it is given: each feature's events reach that feature's
// projector and no other, and the composition root's set is what the inline projector and replay run.
import { describe, expect, it } from "vitest";
import type { ProjectableEvent } from "../../src/domain/events.js";
import { project, type FeatureProjection } from "../../projections/project.js";
import { memoryReader, memoryTables } from "../../projections/memoryTables.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

function recording(): { features: FeatureProjection; calls: string[] } {
  const calls: string[] = [];
  const record =
    (name: string) =>
    (e: ProjectableEvent): [] => {
      calls.push(`${name}:${e.type}`);
      return [];
    };
  return {
    calls,
    features: {
      accounts: record("accounts"),
      unlock: record("unlock"),
      keys: record("keys"),
      members: record("members"),
      ingestions: record("ingestions"),
      webhooks: record("webhooks"),
      alerts: record("alerts"),
      tables: FEATURE_PROJECTORS.tables,
    },
  };
}

const event = (type: string, data: object): ProjectableEvent =>
  ({
    type,
    data,
    position: 1,
    streamVersion: 1,
    recordedAt: "2026-11-29T00:00:00.000Z",
  }) as unknown as ProjectableEvent;

describe("projection registry", () => {
  it("hands each feature's events to the projector it was given", () => {
    const { features, calls } = recording();
    const read = memoryReader(memoryTables(FEATURE_PROJECTORS.tables));
    project(features, event("AlertPaused", { alertId: "a", orgId: "o" }), read);
    project(features, event("ApiKeyRevoked", { keyId: "k", orgId: "o" }), read);
    project(features, event("IngestionFailed", { ingestionId: "i" }), read);
    project(features, event("SessionEnded", { sessionId: "s" }), read);
    project(features, event("WebhookEndpointDeleted", { endpointId: "w" }), read);
    project(features, event("CreditsAdded", { orgId: "o" }), read);
    project(features, event("SearchCharged", { orgId: "o" }), read);
    project(features, event("ResultsUnlocked", { orgId: "o" }), read);
    expect(calls).toEqual([
      "alerts:AlertPaused",
      "keys:ApiKeyRevoked",
      "ingestions:IngestionFailed",
      "members:SessionEnded",
      "webhooks:WebhookEndpointDeleted",
      "accounts:CreditsAdded",
      "accounts:SearchCharged",
      "unlock:ResultsUnlocked",
    ]);
  });

  it("hands no projector the events whose state is read from their own stream", () => {
    const { features, calls } = recording();
    const read = memoryReader(memoryTables(FEATURE_PROJECTORS.tables));
    project(features, event("RetractionsLoaded", {}), read);
    project(features, event("CollectionDefined", {}), read);
    expect(calls).toEqual([]);
  });

  it("installs every feature's own projector, and the tables they write, from the composition root", () => {
    expect(Object.keys(FEATURE_PROJECTORS).sort()).toEqual([
      "accounts",
      "alerts",
      "ingestions",
      "keys",
      "members",
      "tables",
      "unlock",
      "webhooks",
    ]);
    // each table under its own name: the DDL, upserts and replay take a table's spec by the name a change carries
    for (const [name, spec] of Object.entries(FEATURE_PROJECTORS.tables)) expect(spec.name).toBe(name);
  });

  it("refuses an event no projector knows", () => {
    const { features } = recording();
    expect(() =>
      project(features, event("NoSuchEvent", {}), memoryReader(memoryTables(FEATURE_PROJECTORS.tables))),
    ).toThrow(/unknown event/);
  });
});
