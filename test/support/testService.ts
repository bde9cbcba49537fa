// Starts the real service for end-to-end tests: real Temporal, event store, embedded engine and embedding model,
// over a small slice of the demo data so ingestion takes seconds.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  createReadStream,
  createWriteStream,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGunzip, createGzip } from "node:zlib";
import { createInterface } from "node:readline";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import { DEFAULT_DATA_ROOT, loadConfig } from "../../src/app/config.js";
import { startRuntime, type Runtime, type RuntimeOptions } from "../../src/app/composition.js";
import { ingestMissingDemoCollections, planDemoIngestion, type DemoIngestion } from "../../src/app/demoIngest.js";
import { listen } from "../../src/http/server.js";
import { requireComponent } from "../setup/components.js";
import { removeTempDir } from "./tempDirs.js";

/** The data the tests slice and read: demo-data/, shipped in the repository (never ../shared). */
export const SHARED_DATA = DEFAULT_DATA_ROOT;

/**
 * Folders this helper made in the system's temp folder, with the services running on each: a service's data folder
 * (a few hundred MB of PGlite) goes when the last service on it stops, unless its close keeps it for a restart; what
 * is left (kept for a restart, or a data slice) goes after the test file's tests.
 */
const made = new Map<string, number>();

function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.set(dir, 0);
  return dir;
}

function removeMade(dir: string): void {
  made.delete(dir);
  removeTempDir(dir); // kept where KEEP_TEST_DATA=1
}

// registered when a test file loads this module: runs after the file's own afterAll hooks (they run in reverse order)
afterAll(() => {
  for (const dir of [...made.keys()]) removeMade(dir);
});

/** A service starts on `dir`: counted if this helper made it. */
function useDir(dir: string): void {
  const running = made.get(dir);
  if (running !== undefined) made.set(dir, running + 1);
}

/** A service on `dir` stopped: the folder goes with the last one unless `keep` (a test restarts a service on it). */
function releaseDir(dir: string, keep: boolean): void {
  const running = made.get(dir);
  if (running === undefined) return;
  made.set(dir, running - 1);
  if (running <= 1 && !keep) removeMade(dir);
}

async function headLines(src: string, dest: string, n: number, gz: boolean): Promise<void> {
  const input = gz ? createReadStream(src).pipe(createGunzip()) : createReadStream(src);
  const lines: string[] = [];
  for await (const line of createInterface({ input })) {
    lines.push(line);
    if (lines.length >= n) break;
  }
  input.destroy();
  if (gz) {
    await new Promise<void>((resolve, reject) => {
      const out = createGzip();
      out.pipe(createWriteStream(dest)).on("finish", resolve).on("error", reject);
      out.end(lines.join("\n") + "\n");
    });
  } else {
    writeFileSync(dest, lines.join("\n") + "\n");
  }
}

/** The first `n` citations of the MEDLINE sample, still a valid MedlineCitationSet. */
async function headMedline(src: string, dest: string, n: number): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of createReadStream(src).pipe(createGunzip())) chunks.push(c as Buffer);
  const xml = Buffer.concat(chunks).toString("utf8");
  const starts: number[] = [];
  for (
    let i = xml.indexOf("<MedlineCitation ");
    i >= 0 && starts.length <= n;
    i = xml.indexOf("<MedlineCitation ", i + 1)
  )
    starts.push(i);
  const cut = starts.length > n ? starts[n]! : xml.lastIndexOf("</MedlineCitationSet>");
  const sliced = `${xml.slice(0, cut)}</MedlineCitationSet>\n`;
  await new Promise<void>((resolve, reject) => {
    const out = createGzip();
    out.pipe(createWriteStream(dest)).on("finish", resolve).on("error", reject);
    out.end(sliced);
  });
}

/**
 * A data root with the first `docs` SciFact documents, OpenAlex works and MEDLINE citations, and the retraction lists.
 */
export async function sliceDataRoot(docs = 80): Promise<string> {
  const root = makeTempDir("litsearch-data-");
  mkdirSync(join(root, "scifact"));
  mkdirSync(join(root, "articles"));
  await headLines(join(SHARED_DATA, "scifact", "corpus.jsonl"), join(root, "scifact", "corpus.jsonl"), docs, false);
  await headLines(
    join(SHARED_DATA, "articles", "openalex_works.synergy.jsonl.gz"),
    join(root, "articles", "openalex_works.synergy.jsonl.gz"),
    docs,
    true,
  );
  await headMedline(
    join(SHARED_DATA, "articles", "pubmed_medline16n0902_sample.xml.gz"),
    join(root, "articles", "pubmed_medline16n0902_sample.xml.gz"),
    docs,
  );
  // copied, not linked: an operator may name these lists, and the file guard refuses links that leave the data root
  cpSync(join(SHARED_DATA, "retractions"), join(root, "retractions"), { recursive: true });
  symlinkSync(join(SHARED_DATA, "journals"), join(root, "journals"));
  // the slices' passages are the demo's: their shipped vectors answer for them, as on a first start
  symlinkSync(join(SHARED_DATA, "vectors"), join(root, "vectors"));
  return root;
}

/**
 * The demo's OpenAlex records a test keeps: the first 120 and the last 820 (the hair-glucocorticoid review's works,
 * where one query finds many relevant works and authors recur), as JSON lines.
 */
export async function openAlexHeadAndHairReview(): Promise<string[]> {
  const lines: string[] = [];
  const input = createInterface({
    input: createReadStream(join(SHARED_DATA, "articles", "openalex_works.synergy.jsonl.gz")).pipe(createGunzip()),
  });
  for await (const line of input) if (line.trim()) lines.push(line);
  return [...lines.slice(0, 120), ...lines.slice(-820)];
}

export interface TestService {
  baseUrl: string;
  adminToken: string;
  runtime: Runtime;
  dataDir: string;
  /** with `ingestInBackground`: the ingestion running behind the listening service */
  ingestion?: ReturnType<DemoIngestion["run"]>;
  /**
   * Stops the service and removes the data folders the helper made for it, unless another service still runs on
   * them; `keepData`: kept for a service the test starts next on the same folder (removed after the test file).
   */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** The retrieval engines a test runs on, each in turn. */
export const ENGINES = ["embedded", "opensearch"] as const;

export interface TestServiceOptions extends Partial<RuntimeOptions> {
  store?: "pglite" | "postgres";
  databaseUrl?: string;
  dataRoot?: string;
  dataDir?: string;
  /** retrieval on this OpenSearch node instead of the embedded engine */
  opensearchUrl?: string;
  /** 'opensearch': retrieval on the test run's OpenSearch node (the embedded engine otherwise) */
  engine?: (typeof ENGINES)[number];
  /** a collections configuration other than config/collections.json */
  collectionsConfig?: string;
  /** further environment for loadConfig (e.g. TRUST_PROXY, CORS_ORIGINS) */
  env?: Record<string, string>;
  /**
   * listen first and ingest behind it, as `npm start` does; `beforeCollection` is awaited before each collection is
   * built, so a test can hold one back and see the service answer while it is still ingesting
   */
  ingestInBackground?: { beforeCollection?: (collection: string) => Promise<void> };
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? makeTempDir("litsearch-svc-");
  const dataRoot = options.dataRoot ?? (await sliceDataRoot());
  // a data slice the test passes stays for its other services (gone after the file); a data folder is counted
  const counted = options.dataRoot ? [dataDir] : [dataDir, dataRoot];
  for (const dir of counted) useDir(dir);
  try {
    return await startOn(dataDir, dataRoot, counted, options);
  } catch (err) {
    for (const dir of counted) releaseDir(dir, false);
    throw err;
  }
}

async function startOn(
  dataDir: string,
  dataRoot: string,
  counted: string[],
  options: TestServiceOptions,
): Promise<TestService> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    DATA_ROOT: dataRoot,
    PORT: "0",
    ADMIN_TOKEN: "test-admin-token-0123456789",
    TEMPORAL_ADDRESS: requireComponent("temporalAddress"),
    DATABASE_URL: options.store === "postgres" ? options.databaseUrl : "",
    OPENSEARCH_URL: options.opensearchUrl ?? (options.engine === "opensearch" ? requireComponent("opensearchUrl") : ""),
    LOG_LEVEL: "warn",
    ...(options.collectionsConfig ? { COLLECTIONS_CONFIG: options.collectionsConfig } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const runtime = await startRuntime(config, { worker: true, log: pino({ level: "warn" }), ...options });
  const background = options.ingestInBackground
    ? await planDemoIngestion(runtime, options.ingestInBackground)
    : undefined;
  if (!background) await ingestMissingDemoCollections(runtime);
  const server: Server = await listen(runtime.app, 0, "127.0.0.1");
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    adminToken: config.adminToken,
    runtime,
    dataDir,
    ingestion: background?.run(),
    async close(closing = {}) {
      try {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await background?.cancel();
        await runtime.close();
      } finally {
        for (const dir of counted) releaseDir(dir, closing.keepData === true);
      }
    },
  };
}

/** A small HTTP client for tests: JSON in, status + headers + JSON out. */
export function httpClient(baseUrl: string) {
  return async (
    method: string,
    path: string,
    opts: { key?: string; admin?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (opts.admin) headers.Authorization = `Bearer ${opts.admin}`;
    if (opts.body !== undefined || opts.raw !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, headers: res.headers, body: json };
  };
}

/** Polls an ingestion (GET /admin/v1/ingestions/{id}) until it is no longer running, and returns its last answer. */
export async function untilIngested(
  call: ReturnType<typeof httpClient>,
  admin: string,
  ingestionId: string,
  attempts = 1200,
): Promise<any> {
  for (let i = 0; i < attempts; i++) {
    const res = await call("GET", `/admin/v1/ingestions/${ingestionId}`, { admin });
    if (res.status !== 200) throw new Error(`ingestion ${ingestionId}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.state !== "running") return res.body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`ingestion ${ingestionId} did not end`);
}

/**
 * One service for a whole test file: started before its tests (with its HTTP client and the operator steps), closed
 * after them. Read the fields inside tests and hooks, once the service has started.
 */
export function useTestService(options: TestServiceOptions = {}): {
  svc: TestService;
  call: ReturnType<typeof httpClient>;
  ops: ReturnType<typeof operatorSteps>;
} {
  const shared = {} as { svc: TestService; call: ReturnType<typeof httpClient>; ops: ReturnType<typeof operatorSteps> };
  beforeAll(async () => {
    shared.svc = await startTestService(options);
    shared.call = httpClient(shared.svc.baseUrl);
    shared.ops = operatorSteps(shared.call, shared.svc.adminToken);
  }, 600_000);
  afterAll(async () => {
    await shared.svc?.close();
  });
  return shared;
}

/**
 * The service, its client, and a live key of an organization credited with `credits`: what a test searching as one
 * customer starts with.
 */
export async function startWithCustomer(
  options: TestServiceOptions,
  credits: string,
): Promise<{ svc: TestService; call: ReturnType<typeof httpClient>; key: string }> {
  const svc = await startTestService(options);
  try {
    const call = httpClient(svc.baseUrl);
    return { svc, call, key: (await operatorSteps(call, svc.adminToken).customer({ credits })).key };
  } catch (err) {
    await svc.close();
    throw err;
  }
}

export function readAdminToken(dataDir: string): string {
  return readFileSync(join(dataDir, "admin-token"), "utf8").trim();
}

/** The operator steps most end-to-end tests begin with: an organization (with credits), a key, a balance. */
export function operatorSteps(call: ReturnType<typeof httpClient>, admin: string) {
  async function newOrg(body: Record<string, unknown> = {}, credits?: string) {
    const org = await call("POST", "/admin/v1/organizations", { admin, body: { name: "Lab", ...body } });
    if (org.status !== 201) throw new Error(`organization not created: ${org.status} ${JSON.stringify(org.body)}`);
    if (credits) {
      const added = await call("POST", `/admin/v1/organizations/${org.body.id}/credits`, {
        admin,
        body: { amount: credits },
      });
      if (added.status !== 200) throw new Error(`credits not added: ${added.status} ${JSON.stringify(added.body)}`);
    }
    return org.body as { id: string; name: string; billingMode: string; limits: Record<string, number> };
  }
  async function newKey(orgId: string, body: Record<string, unknown> = { mode: "live" }) {
    const res = await call("POST", `/admin/v1/organizations/${orgId}/keys`, { admin, body });
    if (res.status !== 201) throw new Error(`key not created: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; key: string };
  }
  /**
   * An organization (credited with `credits` when given) and one live key of it (scoped to `collections` when given).
   */
  async function customer(options: { credits?: string; org?: Record<string, unknown>; collections?: string[] } = {}) {
    const org = await newOrg(options.org, options.credits);
    const { key } = await newKey(org.id, {
      mode: "live",
      ...(options.collections ? { collections: options.collections } : {}),
    });
    return { orgId: org.id, key };
  }
  const balanceOf = async (orgId: string) =>
    (await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin })).body.balance as string;
  return { newOrg, newKey, customer, balanceOf };
}
