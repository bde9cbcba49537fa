// The operator CLI and API against a running service elsewhere: --url / LITSEARCH_URL with the operator token send a
// command to that server (nothing local is opened or created), the organization list pages and searches, and a key
// scoped to a collection that does not exist is refused naming the nearest one.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { findFreePort } from "../../src/infra/freePort.js";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let ops: ReturnType<typeof operatorSteps>;

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  ops = operatorSteps(call, svc.adminToken);
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

/** The CLI in its own process, with a DATA_DIR that holds nothing (so any local store it opened would be a new one). */
function cli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: "", ...env };
  for (const name of ["LITSEARCH_URL", "ADMIN_TOKEN"] as const) if (!(name in env)) delete base[name];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/litsearch.mjs", ...args], { cwd: REPO_ROOT, env: base });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("the operator CLI with --url", () => {
  it("sends its commands to that server, creating nothing locally; LITSEARCH_URL and ADMIN_TOKEN too", async () => {
    const emptyDir = join(tempDir("litsearch-cli-remote-"), "data");
    const flags = ["--url", svc.baseUrl, "--admin-token", svc.adminToken];
    const created = await cli({ DATA_DIR: emptyDir }, "org", "create", "--name", "Remote lab", ...flags);
    expect(created.code, created.err).toBe(0);
    const org = JSON.parse(created.out) as { id: string };
    // the running service answers for it: the CLI wrote to its store
    expect((await call("GET", `/admin/v1/organizations/${org.id}`, { admin: svc.adminToken })).body).toMatchObject({
      id: org.id,
      name: "Remote lab",
    });
    const credited = await cli(
      { DATA_DIR: emptyDir, LITSEARCH_URL: `${svc.baseUrl}/`, ADMIN_TOKEN: svc.adminToken },
      "credits",
      "add",
      org.id,
      "3.00",
    );
    expect(JSON.parse(credited.out)).toEqual({ balance: "3.000000" });
    const listed = await cli(
      { DATA_DIR: emptyDir, LITSEARCH_URL: svc.baseUrl, ADMIN_TOKEN: svc.adminToken },
      "org",
      "list",
      "remote lab",
      "--json",
    );
    expect(JSON.parse(listed.out).organizations).toEqual([
      expect.objectContaining({ id: org.id, balance: "3.000000" }),
    ]);
    expect(existsSync(emptyDir)).toBe(false);
  }, 300_000);

  it("refuses a wrong token, a missing token and an unreachable server, each saying so", async () => {
    const emptyDir = join(tempDir("litsearch-cli-remote-"), "data");
    const wrong = await cli(
      { DATA_DIR: emptyDir },
      "org",
      "list",
      "--url",
      svc.baseUrl,
      "--admin-token",
      "not-the-operator-token-000",
    );
    expect([wrong.code, wrong.err]).toEqual([1, expect.stringMatching(/^(UNAUTHORIZED|INVALID_API_KEY|FORBIDDEN): /)]);
    const tokenless = await cli({ DATA_DIR: emptyDir }, "org", "list", "--url", svc.baseUrl);
    expect([tokenless.code, tokenless.err]).toEqual([
      1,
      expect.stringContaining("needs its operator token: pass --admin-token TOKEN or set ADMIN_TOKEN"),
    ]);
    const nobody = `http://127.0.0.1:${await findFreePort()}`;
    const closed = await cli({ DATA_DIR: emptyDir }, "org", "list", "--url", nobody, "--admin-token", svc.adminToken);
    expect([closed.code, closed.err]).toEqual([1, expect.stringContaining(`cannot reach ${nobody}: ECONNREFUSED`)]);
    expect(existsSync(emptyDir)).toBe(false);
  }, 300_000);
});

describe("GET /admin/v1/organizations", () => {
  it("lists organizations by name a page at a time with balance, mode and keys; q finds by name or id", async () => {
    const tag = `Paging${Date.now()}`;
    const made: { id: string; name: string }[] = [];
    for (const [i, credits] of ["1.50", "2.00", "0.25"].entries()) {
      const org = await ops.newOrg({ name: `${tag} lab ${i}`, ...(i === 2 ? { billingMode: "trial" } : {}) }, credits);
      made.push(org);
    }
    await ops.newKey(made[0]!.id);
    const revoked = await ops.newKey(made[0]!.id);
    await call("POST", `/admin/v1/keys/${revoked.id}/revoke`, { admin: svc.adminToken });

    const admin = svc.adminToken;
    const first = await call("GET", `/admin/v1/organizations?q=${tag.toLowerCase()}&limit=2`, { admin });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      organizations: [
        {
          id: made[0]!.id,
          name: `${tag} lab 0`,
          billingMode: "live",
          billingEnabled: true,
          suspended: false,
          balance: "1.500000",
          activeKeys: 1,
          members: 0,
        },
        {
          id: made[1]!.id,
          name: `${tag} lab 1`,
          billingMode: "live",
          billingEnabled: true,
          suspended: false,
          balance: "2.000000",
          activeKeys: 0,
          members: 0,
        },
      ],
      total: 3,
      offset: 0,
      limit: 2,
    });
    const second = await call("GET", `/admin/v1/organizations?q=${tag}&limit=2&offset=2`, { admin });
    expect(second.body.organizations).toEqual([
      expect.objectContaining({ id: made[2]!.id, billingMode: "trial", balance: "0.250000" }),
    ]);
    expect(
      (await call("GET", `/admin/v1/organizations?q=${made[1]!.id}`, { admin })).body.organizations.map(
        (o: { id: string }) => o.id,
      ),
    ).toEqual([made[1]!.id]);
    // LIKE's wildcards are plain characters in q
    expect((await call("GET", `/admin/v1/organizations?q=${encodeURIComponent("%")}`, { admin })).body.total).toBe(0);
    const all = await call("GET", "/admin/v1/organizations", { admin });
    expect(all.body.total).toBeGreaterThanOrEqual(3);
    expect(all.body.limit).toBe(50);

    for (const query of ["limit=0", "limit=201", "offset=-1", "page=2"]) {
      const bad = await call("GET", `/admin/v1/organizations?${query}`, { admin });
      expect([bad.status, bad.body.error.code]).toEqual([422, "VALIDATION_ERROR"]);
    }
    expect((await call("GET", "/admin/v1/organizations")).status).toBe(401);
    expect((await call("GET", "/admin/v1/organizations", { key: (await ops.newKey(made[0]!.id)).key })).status).toBe(
      401,
    );
  }, 120_000);

  it("refuses a key scoped to a collection that does not exist, naming the nearest one; creates no key", async () => {
    const org = await ops.newOrg({ name: "Typo lab" });
    const typo = await call("POST", `/admin/v1/organizations/${org.id}/keys`, {
      admin: svc.adminToken,
      body: { mode: "live", collections: ["scifacts"] },
    });
    expect(typo.status).toBe(422);
    expect(typo.body.error.code).toBe("VALIDATION_ERROR");
    expect(typo.body.error.message).toContain(
      'collections: no collection is named "scifacts". Did you mean "scifact"?',
    );
    expect(
      (await call("GET", `/admin/v1/organizations?q=${org.id}`, { admin: svc.adminToken })).body.organizations[0]
        .activeKeys,
    ).toBe(0);
    // a name in another case is the catalogue's collection, stored as the catalogue spells it
    const cased = await call("POST", `/admin/v1/organizations/${org.id}/keys`, {
      admin: svc.adminToken,
      body: { mode: "live", collections: ["SciFact", "scifact"] },
    });
    expect(cased.status).toBe(201);
    expect((await call("GET", `/admin/v1/keys/${cased.body.id}`, { admin: svc.adminToken })).body.collections).toEqual([
      "scifact",
    ]);
  }, 120_000);
});
