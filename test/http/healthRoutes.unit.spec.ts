// /readyz: the checks decide readiness; details (how vector search runs) are shown beside them and never decide it.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import Koa from "koa";
import { afterEach, describe, expect, it } from "vitest";
import { HEALTH_ROUTES, type ReadinessCheck, type ReadinessDetails } from "../../src/http/routes/healthRoutes.js";
import { declaredGroup } from "../../src/http/routeDeclaration.js";

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function readyz(
  checks: Record<string, ReadinessCheck>,
  details?: ReadinessDetails,
): Promise<{ status: number; body: unknown }> {
  const app = new Koa();
  const deps = { readiness: checks, readinessDetails: details };
  app.use(declaredGroup(HEALTH_ROUTES, deps, { public: "public" }).router.routes());
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe("/readyz", () => {
  it("shows details beside the checks", async () => {
    expect(await readyz({ search: async () => true }, async () => ({ searchKnn: "lucene-hnsw" }))).toEqual({
      status: 200,
      body: { status: "ready", checks: { search: "up" }, details: { searchKnn: "lucene-hnsw" } },
    });
  });

  it("stays ready while collections ingest, and lists them", async () => {
    const collections = { ready: ["openalex-synergy"], ingesting: ["scifact"], failed: [] };
    expect(await readyz({ search: async () => true }, async () => ({ searchKnn: "exact", collections }))).toEqual({
      status: 200,
      body: { status: "ready", checks: { search: "up" }, details: { searchKnn: "exact", collections } },
    });
  });

  it("leaves details out when they cannot be had, without changing readiness", async () => {
    const failing: ReadinessDetails = async () => {
      throw new Error("node down");
    };
    expect(await readyz({ search: async () => false }, failing)).toEqual({
      status: 503,
      body: { status: "not_ready", checks: { search: "down" } },
    });
    expect(await readyz({ search: async () => true })).toEqual({
      status: 200,
      body: { status: "ready", checks: { search: "up" } },
    });
  });
});
