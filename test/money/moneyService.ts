// The real service (Koa, Temporal, PostgreSQL, embedded engine, embedding model) for the money tests: one or more API
// runtimes on one PostgreSQL database owned by a non-superuser role (so a test can revoke its privileges), one clock
// the tests move by hand.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect } from "vitest";
import { startTestService, sliceDataRoot, httpClient, type TestService } from "../support/testService.js";
import { requireComponent } from "../setup/components.js";
import type { RuntimeOptions } from "../../src/app/composition.js";

export interface MovableClock {
  now(): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export function movableClock(startIso: string): MovableClock {
  let t = new Date(startIso).getTime();
  return { now: () => new Date(t), set: (iso) => (t = new Date(iso).getTime()), advance: (ms) => (t += ms) };
}

export interface MoneyServices {
  services: TestService[];
  /** HTTP client of the i-th API runtime */
  call: ReturnType<typeof httpClient>[];
  admin: string;
  clock: MovableClock;
  role: string;
  /** a superuser connection to the service's database, for inspection and for making stores unreachable */
  superuser: pg.Client;
  close(): Promise<void>;
}

/** Creates role `svc_*` and a database it owns; returns the role and the database URL the service uses. */
async function ownedDatabase(): Promise<{ role: string; url: string; superuserUrl: string }> {
  const base = new URL(requireComponent("postgresUrl"));
  const role = `svc_${randomBytes(4).toString("hex")}`;
  const name = `m_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`CREATE DATABASE ${name} OWNER ${role}`);
  } finally {
    await admin.end();
  }
  const superuserUrl = new URL(base);
  superuserUrl.pathname = `/${name}`;
  const url = new URL(superuserUrl);
  url.username = role;
  return { role, url: url.toString(), superuserUrl: superuserUrl.toString() };
}

export async function startMoneyServices(
  count: number,
  startIso: string,
  options: Partial<Omit<RuntimeOptions, "worker" | "clock">> = {},
): Promise<MoneyServices> {
  const clock = movableClock(startIso);
  const { role, url, superuserUrl } = await ownedDatabase();
  const dataRoot = await sliceDataRoot();
  const services: TestService[] = [];
  for (let i = 0; i < count; i++) {
    // later runtimes open the first one's data directory: its index is built, so they skip ingestion
    services.push(
      await startTestService({
        store: "postgres",
        databaseUrl: url,
        dataRoot,
        clock: clock.now,
        dataDir: services[0]?.dataDir,
        ...options,
      }),
    );
  }
  const superuser = new pg.Client({ connectionString: superuserUrl });
  await superuser.connect();
  return {
    services,
    call: services.map((s) => httpClient(s.baseUrl)),
    admin: services[0]!.adminToken,
    clock,
    role,
    superuser,
    async close() {
      await superuser.end();
      for (const s of services) await s.close();
    },
  };
}

/** Operator helpers over the admin API of one runtime. */
export function operator(call: ReturnType<typeof httpClient>, admin: string) {
  return {
    async org(body: Record<string, unknown> = {}, credits?: string) {
      const org = await call("POST", "/admin/v1/organizations", { admin, body: { name: "Money lab", ...body } });
      expect(org.status).toBe(201);
      if (credits)
        expect(
          (await call("POST", `/admin/v1/organizations/${org.body.id}/credits`, { admin, body: { amount: credits } }))
            .status,
        ).toBe(200);
      return org.body as { id: string; limits: Record<string, number> };
    },
    async key(orgId: string, body: Record<string, unknown> = { mode: "live" }) {
      const res = await call("POST", `/admin/v1/organizations/${orgId}/keys`, { admin, body });
      expect(res.status).toBe(201);
      return res.body as { id: string; key: string };
    },
    async balance(orgId: string) {
      return (await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin })).body.balance as string;
    },
    async limits(orgId: string, limits: Record<string, number>) {
      expect((await call("POST", `/admin/v1/organizations/${orgId}/limits`, { admin, body: limits })).status).toBe(200);
    },
  };
}

/** Events of one organization, as stored. */
export async function orgEvents(db: pg.Client, orgId: string, type?: string) {
  const res = await db.query(
    `SELECT position::int AS position, type, data, metadata, recorded_at FROM events WHERE stream_id = $1 ` +
      `${type ? "AND type = $2" : ""} ORDER BY position`,
    type ? [`org-${orgId}`, type] : [`org-${orgId}`],
  );
  return res.rows as { position: number; type: string; data: any; metadata: any; recorded_at: Date }[];
}

export const BILLING_HEADERS = ["x-tokens-used", "x-query-cost", "x-billing-mode", "x-credits-remaining"];
export const RATE_LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];
