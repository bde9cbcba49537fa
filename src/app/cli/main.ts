// The operator CLI: `npm run cli -- <command>` (also the `litsearch` bin). Sends a command to the operator API of the
// server named by --url (or LITSEARCH_URL), else of the server running on this data directory, else opens that
// directory's store directly; a store that does not exist is created only when asked (--init). Its environment is read
// once, at the entry (the last lines), through src/app/config.ts.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";
import {
  loadConfig,
  operatorTargetFrom,
  storeLocationFrom,
  type OperatorTarget,
  type StoreLocation,
} from "../config.js";
import type { Operations, OrganizationListView } from "../../usecases/operator/operations.js";
import { Rejection } from "../../domain/rejection.js";
import { ledgerCsv } from "../../usecases/operator/ledgerCsv.js";
import type { StoredUpload } from "../../usecases/operator/uploads.js";
import type { BillingMode } from "../../domain/events.js";
import { printList } from "./tables.js";
import { followIngestion } from "./followIngestion.js";
import { ALERT_ARGUMENTS, ALERT_USAGE, alertCommands, remoteAlertOperations } from "./alertCommands.js";

// What only a command run beside the store needs (the store, the engine, the model, the journals) is imported when such a
// command runs: a command sent to a server (--url) starts without loading any of it.
const composition = () => import("../composition.js");

const USAGE = `usage: litsearch <command> [options]

  org create --name NAME [--billing-mode live|trial|exempt] [--trial-queries N] [--billing-off] [--hide-balance]
             [--per-minute N] [--daily N] [--monthly N] [--preview-per-hour N]
  org list [SEARCH] [--limit N] [--offset N]   organizations by name (SEARCH: part of a name, or an id)
  org show ORG_ID
  org limits ORG_ID [--per-minute N] [--daily N] [--monthly N] [--preview-per-hour N]
  org billing ORG_ID [--billing-mode live|trial|exempt] [--trial-queries N] [--billing on|off] [--balance shown|hidden]
  org suspend ORG_ID [--reason TEXT]      org resume ORG_ID
  price set ORG_ID COLLECTION PRICE_PER_1000      price clear ORG_ID COLLECTION      price list ORG_ID
  credits add ORG_ID AMOUNT [--reference TEXT]
  refund ORG_ID AMOUNT [--reference TEXT] [--query-id QUERY_ID]
  key create ORG_ID --mode live|test [--name NAME] [--collections a,b] [--spending-cap AMOUNT]
  key revoke KEY_ID                         key show KEY_ID
  key cap KEY_ID AMOUNT | key cap KEY_ID --clear   set or clear a key's spending cap
  member invite ORG_ID EMAIL [--role owner|member]  an invite link to the dashboard (one use, 7 days)
  member list ORG_ID                                 current members and open invites, with their ids
  member remove ORG_ID MEMBER_ID                     take a member out (their sessions stop; the last owner stays)
  member cancel-invite ORG_ID INVITE_ID              withdraw an invite not yet used
  balance ORG_ID
  ledger ORG_ID [--csv]
  reconcile [ORG_ID] [--from YYYY-MM-DD] [--to YYYY-MM-DD]   per day and collection; exit 1 on any discrepancy
  collection list                          the catalogue: collections with their state, size and last ingestion,
                                           meta-collections, retired names
  collection add FILE.json                 define a plain collection (config/collections.json's fields) and start
                                           its first ingestion; its searches answer 503 until that completes
  collection change NAME [--display-name TEXT] [--description TEXT] [--price PRICE_PER_1000]
  collection retire NAME                   its searches answer 404 from now on; its index is deleted
  meta-collection set NAME --display-name TEXT --members a,b[,c] [--description TEXT]
  ingest [--force]                         index the configured collections (skips those already indexed)
  replay [--promote]                       rebuild every projection from position 0 and compare with the live ones
  verify                                   check the event log's hash chain
  journal-requests                         journals clients asked us to add, most requested first
  collection ingest NAME --files a,b [--mode upsert|replace] [--wait]   ingest source files into a plain collection
                                           while the running service answers (upsert: add, change, delete by document;
                                           replace: the collection becomes exactly the files); prints the ingestion id,
                                           or with --wait follows it (documents and chunks done, rate, finish time) and
                                           prints how it ended (exit 1 when it failed)
  ingestion show INGESTION_ID              an ingestion's state and counts (documents added, updated, deleted, unchanged)
  ingestion cancel INGESTION_ID            stop a running ingestion (recorded failed: cancelled); its collection can be
                                           ingested again or retired
  upload FILE [--name NAME]               send a local file to the server's data root (uploads/NAME, by default the
                                           file's name), for a collection definition or an ingestion to name; with
                                           --url, collection add and collection ingest upload their local files
                                           themselves
  webhook list ORG_ID                      the organization's webhook endpoints (the running service's; docs/webhooks.md)
  webhook create ORG_ID URL --events a,b [--description TEXT]
                                           registers an endpoint; prints its signing secret, shown once
  webhook delete|rotate-secret|test|deliveries ORG_ID ENDPOINT_ID
                                           deletes it, rotates its secret, sends it a test event, lists its deliveries
${ALERT_USAGE}
  retractions load FILE...                 load newer retraction lists (Retraction Watch .csv, open-retractions
                                           .jsonl[.gz]; relative paths under DATA_ROOT): their works leave search
                                           results without re-ingesting; retractions/check answers from them
  journals build [--openalex-sources DIR]  compute the journals table from the data root's OpenAlex works, or from
                                           OpenAlex's open sources entity files under DIR (snapshot
                                           data/sources/updated_date=*/part_*.gz) with bounds recomputed from it;
                                           restart the server after
  journals bounds                          recompute the one-ended metric bounds from the journals table

List commands (org list, price list, member list, collection list, journal-requests, alert list, alert show) print
tables; --json prints
the operator API's JSON instead.

Which server or store:
  --url URL --admin-token TOKEN   send the command to that server's operator API (or LITSEARCH_URL and ADMIN_TOKEN)
  otherwise                       the server running on DATA_DIR (its server.json), else the store of DATA_DIR or
                                  DATABASE_URL opened directly; one that does not exist is refused unless --init

Environment: LITSEARCH_URL, ADMIN_TOKEN, DATA_DIR, DATABASE_URL, OPENSEARCH_URL (see docs/operations.md).`;

interface Remote {
  url: string;
  token: string;
}

/** A server already running on this data directory owns the store (PGlite allows one process); talk to it instead. */
async function runningServer(dataDir: string): Promise<string | undefined> {
  const file = join(dataDir, "server.json");
  if (!existsSync(file)) return undefined;
  const { url } = JSON.parse(readFileSync(file, "utf8")) as { url: string };
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) });
    return res.ok ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Refuses to open a store that is not there (which would create it) unless --init: the command names where it looked. */
async function requireStore(location: StoreLocation, init: boolean): Promise<void> {
  const { eventStoreExists, describeStoreLocation } = await composition();
  if (init || (await eventStoreExists(location))) return;
  throw new Error(
    `no litsearch store at ${describeStoreLocation(location)}, and no server running on ${location.dataDir} (no answering ${join(location.dataDir, "server.json")}). ` +
      "Send the command to a server with --url URL --admin-token TOKEN (or LITSEARCH_URL and ADMIN_TOKEN), point DATA_DIR or DATABASE_URL at an existing store, " +
      "or pass --init to create a new store there.",
  );
}

/** The positional arguments of the operator commands, in order (`?`: optional); a command is refused before it runs otherwise. */
const ARGUMENTS: Record<string, string[]> = {
  "org list": ["SEARCH?"],
  "org show": ["ORG_ID"],
  "org limits": ["ORG_ID"],
  "org billing": ["ORG_ID"],
  "org suspend": ["ORG_ID"],
  "org resume": ["ORG_ID"],
  "price set": ["ORG_ID", "COLLECTION", "PRICE"],
  "price clear": ["ORG_ID", "COLLECTION"],
  "price list": ["ORG_ID"],
  "credits add": ["ORG_ID", "AMOUNT"],
  "key create": ["ORG_ID"],
  "key show": ["KEY_ID"],
  "key revoke": ["KEY_ID"],
  "key cap": ["KEY_ID", "AMOUNT?"],
  "member invite": ["ORG_ID", "EMAIL"],
  "member list": ["ORG_ID"],
  "member remove": ["ORG_ID", "MEMBER_ID"],
  "member cancel-invite": ["ORG_ID", "INVITE_ID"],
  balance: ["ORG_ID"],
  refund: ["ORG_ID", "AMOUNT"],
  ledger: ["ORG_ID"],
  reconcile: ["ORG_ID?"],
  replay: [],
  verify: [],
  "journal-requests": [],
  "collection list": [],
  "collection add": ["FILE"],
  "collection change": ["NAME"],
  "collection retire": ["NAME"],
  "meta-collection set": ["NAME"],
  "collection ingest": ["NAME"],
  "ingestion show": ["INGESTION_ID"],
  "ingestion cancel": ["INGESTION_ID"],
  upload: ["FILE"],
  "webhook list": ["ORG_ID"],
  "webhook create": ["ORG_ID", "URL"],
  "webhook delete": ["ORG_ID", "ENDPOINT_ID"],
  "webhook rotate-secret": ["ORG_ID", "ENDPOINT_ID"],
  "webhook test": ["ORG_ID", "ENDPOINT_ID"],
  "webhook deliveries": ["ORG_ID", "ENDPOINT_ID"],
  ...ALERT_ARGUMENTS,
};

/** Refuses a known command given too few, too many or empty positional arguments, naming what it takes. */
function checkArguments(command: string | undefined, sub: string | undefined, rest: string[]): void {
  const twoWords = `${command} ${sub ?? ""}`.trim();
  const [name, given] = ARGUMENTS[twoWords]
    ? [twoWords, rest]
    : [command ?? "", [sub, ...rest].filter((a): a is string => a !== undefined)];
  const expected = ARGUMENTS[name];
  if (!expected) return;
  const required = expected.filter((a) => !a.endsWith("?")).length;
  if (given.length < required || given.length > expected.length || given.some((a) => a.trim() === "")) {
    throw new Error(
      `usage: ${name} ${expected.map((a) => (a.endsWith("?") ? `[${a.slice(0, -1)}]` : a)).join(" ")}`.trim(),
    );
  }
}

/** What the CLI runs: the operations, with the organization list as the operator API prints it. */
type CliOperations = Omit<Operations, "listOrganizations"> & {
  listOrganizations(page: { q?: string; limit: number; offset: number }): Promise<OrganizationListView>;
};

async function localOperations(ops: Operations): Promise<CliOperations> {
  const { organizationListView } = await import("../../usecases/operator/operations.js");
  return { ...ops, listOrganizations: async (page) => organizationListView(await ops.listOrganizations(page)) };
}

/** The operations on the store of this data directory, opened here. */
async function localStoreOperations(
  config: ReturnType<typeof loadConfig>,
  db: Awaited<ReturnType<Awaited<ReturnType<typeof composition>>["openEventStore"]>>,
): Promise<CliOperations> {
  const [{ openCatalogue }, { createAccounts }, { createOperations }, { createLiveRetractions }] = await Promise.all([
    composition(),
    import("../../usecases/accounts/accounts.js"),
    import("../../usecases/operator/operations.js"),
    import("../../ingest/liveRetractions.js"),
  ]);
  return localOperations(
    createOperations(createAccounts(db), {
      catalog: await openCatalogue(config, db, () => new Date()),
      retractions: createLiveRetractions({ db, dataRoot: config.dataRoot }),
    }),
  );
}

/** The operations the CLI sends to a running server. */
function remoteOperations(remote: Remote): CliOperations {
  const call = async (method: string, path: string, body?: unknown, okStatuses: number[] = [200, 201]) => {
    let res: Response;
    try {
      res = await fetch(`${remote.url}/admin/v1${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${remote.token}`,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot reach ${remote.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(
        `${remote.url} answered HTTP ${res.status} without JSON: is it a litsearch server? (${text.slice(0, 80)})`,
      );
    }
    if (!okStatuses.includes(res.status)) {
      // the envelope, or the per-address limiter's bare {error: string}
      const err =
        typeof json.error === "string"
          ? { code: "INTERNAL_ERROR", message: json.error }
          : (json.error as { code: string; message: string } | undefined);
      throw new Rejection((err?.code ?? "INTERNAL_ERROR") as never, err?.message ?? `HTTP ${res.status}`);
    }
    return json;
  };
  return {
    ...remoteAlertOperations(call),
    createOrganization: (input) => call("POST", "/organizations", input) as never,
    listOrganizations: (page) =>
      call(
        "GET",
        `/organizations?${new URLSearchParams({ ...(page.q ? { q: page.q } : {}), limit: String(page.limit), offset: String(page.offset) })}`,
      ) as never,
    getOrganization: (orgId) => call("GET", `/organizations/${orgId}`) as never,
    addCredits: (orgId, amount, reference) =>
      call("POST", `/organizations/${orgId}/credits`, { amount, reference }) as never,
    changeLimits: (orgId, limits) => call("POST", `/organizations/${orgId}/limits`, limits) as never,
    changeBillingSettings: (orgId, change) => call("POST", `/organizations/${orgId}/billing`, change) as never,
    setPrice: (orgId, collection, price) =>
      (price === null
        ? call("DELETE", `/organizations/${orgId}/prices/${encodeURIComponent(collection)}`)
        : call("PUT", `/organizations/${orgId}/prices/${encodeURIComponent(collection)}`, {
            pricePer1000: price,
          })) as never,
    prices: (orgId) => call("GET", `/organizations/${orgId}/prices`) as never,
    issueRefund: (orgId, amount, reference, queryId) =>
      call("POST", `/organizations/${orgId}/refunds`, { amount, reference, queryId }) as never,
    getKey: (keyId) => call("GET", `/keys/${keyId}`) as never,
    reconcile: (orgId, from, to) =>
      call("GET", `/organizations/${orgId}/reconciliation${periodQuery(from, to)}`) as never,
    reconcileAll: (from, to) => call("GET", `/reconciliation${periodQuery(from, to)}`) as never,
    setSuspended: (orgId, suspended, reason) =>
      call("POST", `/organizations/${orgId}/${suspended ? "suspend" : "resume"}`, suspended ? { reason } : {}) as never,
    createKey: (orgId, input) => call("POST", `/organizations/${orgId}/keys`, input) as never,
    revokeKey: (keyId) => call("POST", `/keys/${keyId}/revoke`) as never,
    setSpendingCap: (keyId, spendingCap) => call("POST", `/keys/${keyId}/spending-cap`, { spendingCap }) as never,
    // the server builds the link from its own public address
    inviteMember: (orgId, input) => call("POST", `/organizations/${orgId}/invites`, input) as never,
    members: (orgId) => call("GET", `/organizations/${orgId}/members`) as never,
    cancelInvite: (orgId, inviteId) =>
      call("POST", `/organizations/${orgId}/invites/${encodeURIComponent(inviteId)}/cancel`) as never,
    removeMember: (orgId, memberId) =>
      call("POST", `/organizations/${orgId}/members/${encodeURIComponent(memberId)}/remove`) as never,
    balance: (orgId) => call("GET", `/organizations/${orgId}/balance`) as never,
    ledger: (orgId) => call("GET", `/organizations/${orgId}/ledger`) as never,
    replay: async () => findingOf(await call("POST", "/replay", undefined, [200, 409])) as never,
    verify: async () => findingOf(await call("GET", "/verify", undefined, [200, 409])) as never,
    journalRequests: () => call("GET", "/journal-requests") as never,
    loadRetractions: (files) => call("POST", "/retractions", { files }) as never,
    listCollections: () => call("GET", "/collections") as never,
    defineCollection: (definition) => call("POST", "/collections", definition, [201]) as never,
    changeCollection: (name, change) => call("PATCH", `/collections/${encodeURIComponent(name)}`, change) as never,
    retireCollection: (name) => call("DELETE", `/collections/${encodeURIComponent(name)}`) as never,
    defineMetaCollection: async (name, body) => ({
      metaCollection: (await call("PUT", `/meta-collections/${encodeURIComponent(name)}`, body, [200, 201])) as never,
      created: false,
    }),
    ingestCollection: (collection, request) =>
      call("POST", `/collections/${encodeURIComponent(collection)}/ingest`, request, [202]) as never,
    ingestion: (ingestionId) => call("GET", `/ingestions/${encodeURIComponent(ingestionId)}`) as never,
    cancelIngestion: (ingestionId) => call("POST", `/ingestions/${encodeURIComponent(ingestionId)}/cancel`) as never,
    upload: async (name, body, declaredBytes) => {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${remote.token}`,
        "Content-Type": "application/octet-stream",
        ...(declaredBytes === undefined ? {} : { "Content-Length": String(declaredBytes) }),
      };
      let res: Response;
      try {
        res = await fetch(`${remote.url}/admin/v1/uploads/${encodeURIComponent(name)}`, {
          method: "PUT",
          headers,
          body: Readable.toWeb(Readable.from(body)) as ReadableStream,
          duplex: "half",
        } as RequestInit);
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new Error(`cannot reach ${remote.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
      }
      const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (res.status !== 200 && res.status !== 201) {
        const err = json.error as { code?: string; message?: string } | undefined;
        throw new Rejection((err?.code ?? "INTERNAL_ERROR") as never, err?.message ?? `HTTP ${res.status}`);
      }
      return { ...(json as never as StoredUpload), created: res.status === 201 };
    },
    listWebhooks: (orgId) => call("GET", `/organizations/${orgId}/webhooks`) as never,
    createWebhook: (orgId, input) => call("POST", `/organizations/${orgId}/webhooks`, input, [201]) as never,
    deleteWebhook: (orgId, endpointId) =>
      call("DELETE", `/organizations/${orgId}/webhooks/${encodeURIComponent(endpointId)}`) as never,
    rotateWebhookSecret: (orgId, endpointId) =>
      call("POST", `/organizations/${orgId}/webhooks/${encodeURIComponent(endpointId)}/rotate-secret`) as never,
    testWebhook: (orgId, endpointId) =>
      call(
        "POST",
        `/organizations/${orgId}/webhooks/${encodeURIComponent(endpointId)}/test`,
        undefined,
        [202],
      ) as never,
    webhookDeliveries: (orgId, endpointId, limit) =>
      call(
        "GET",
        `/organizations/${orgId}/webhooks/${encodeURIComponent(endpointId)}/deliveries${limit ? `?limit=${limit}` : ""}`,
      ) as never,
  };
}

/**
 * Sends the local files of `files` to the server (PUT /admin/v1/uploads/{name}) and answers the names the server knows
 * them by (`uploads/<name>`); a name that is no local file is the server's own path and passes unchanged. Each upload's
 * SHA-256 is checked against the bytes read here; two local files of one name are refused before anything is sent.
 */
async function uploadLocalFiles(
  ops: CliOperations,
  files: readonly string[],
  baseDirs: readonly string[],
  log: (line: string) => void,
): Promise<string[]> {
  const local = files.map((file) =>
    baseDirs.map((dir) => resolve(dir, file)).find((path) => existsSync(path) && statSync(path).isFile()),
  );
  const names = local.map((path) => (path ? basename(path) : undefined));
  const taken = names.filter((n): n is string => n !== undefined);
  const twice = taken.find((n, i) => taken.indexOf(n) !== i);
  if (twice) throw new Error(`two local files are named ${twice}: uploads are stored by file name; rename one`);
  const named: string[] = [];
  for (const [i, file] of files.entries()) {
    const path = local[i];
    if (!path) {
      named.push(file);
      continue;
    }
    const hash = createHash("sha256");
    const body = (async function* () {
      for await (const chunk of createReadStream(path)) {
        hash.update(chunk as Buffer);
        yield chunk as Buffer;
      }
    })();
    const stored = await ops.upload(basename(path), body, statSync(path).size);
    const sent = hash.digest("hex");
    if (stored.sha256 !== sent)
      throw new Error(
        `${file}: the server stored bytes whose SHA-256 (${stored.sha256}) is not the file's (${sent}); upload it again`,
      );
    log(`uploaded ${file} as ${stored.file} (${stored.bytes} bytes, sha256 ${stored.sha256})`);
    named.push(stored.file);
  }
  return named;
}

/** A replay report or chain verdict: the body on 200, the error's details on a 409 finding; a 409 without one is refused work. */
function findingOf(body: unknown): unknown {
  const error = (body as { error?: { message: string; details?: unknown } }).error;
  if (!error) return body;
  if (error.details === undefined) throw new Error(error.message);
  return error.details;
}

const periodQuery = (from?: string, to?: string) => {
  const q = new URLSearchParams(Object.entries({ from, to }).filter((e): e is [string, string] => e[1] !== undefined));
  return q.size ? `?${q}` : "";
};

const onOff = (v: string | undefined, on: string, off: string, name: string): boolean | undefined => {
  if (v === undefined) return undefined;
  if (v === on) return true;
  if (v === off) return false;
  throw new Error(`--${name} must be ${on} or ${off}`);
};

const intOpt = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
};

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      "billing-mode": { type: "string" },
      "per-minute": { type: "string" },
      daily: { type: "string" },
      monthly: { type: "string" },
      "preview-per-hour": { type: "string" },
      "hide-balance": { type: "boolean" },
      reason: { type: "string" },
      reference: { type: "string" },
      mode: { type: "string" },
      collections: { type: "string" },
      files: { type: "string" },
      "spending-cap": { type: "string" },
      csv: { type: "boolean" },
      "openalex-sources": { type: "string" },
      force: { type: "boolean" },
      promote: { type: "boolean" },
      "trial-queries": { type: "string" },
      "billing-off": { type: "boolean" },
      billing: { type: "string" },
      balance: { type: "string" },
      "query-id": { type: "string" },
      role: { type: "string" },
      clear: { type: "boolean" },
      from: { type: "string" },
      to: { type: "string" },
      limit: { type: "string" },
      offset: { type: "string" },
      url: { type: "string" },
      "admin-token": { type: "string" },
      "display-name": { type: "string" },
      description: { type: "string" },
      price: { type: "string" },
      members: { type: "string" },
      events: { type: "string" },
      init: { type: "boolean" },
      json: { type: "boolean" },
      wait: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const target: OperatorTarget = operatorTargetFrom({ url: values.url, adminToken: values["admin-token"] }, env);
  const print = (v: unknown) => console.log(JSON.stringify(v, null, 2));
  /** a list command's answer: a table by default, the operator API's JSON with --json */
  const printTable = (command: string, v: unknown) => console.log(printList(command, v, values.json ?? false));
  const limits = () =>
    Object.fromEntries(
      Object.entries({
        perMinute: intOpt(values["per-minute"], "per-minute"),
        daily: intOpt(values.daily, "daily"),
        monthly: intOpt(values.monthly, "monthly"),
        previewPerHour: intOpt(values["preview-per-hour"], "preview-per-hour"),
      }).filter(([, v]) => v !== undefined),
    );

  if ((command === "journals" || command === "ingest") && target.url)
    throw new Error(
      `${command} runs beside the server's data, not through its API: run it without --url (or LITSEARCH_URL) on the server's machine`,
    );
  if (command === "journals") {
    const config = loadConfig(env);
    const { JOURNAL_BOUNDS_FILE, JOURNALS_FILE } = await import("../../filters/planner.js");
    const { runBuildJournals } = await import("../../journals/build.js");
    const { runComputeBounds } = await import("../../journals/bounds.js");
    const journalsPath = join(config.dataDir, JOURNALS_FILE);
    const boundsPath = join(config.dataDir, JOURNAL_BOUNDS_FILE);
    // a snapshot's table brings its own bounds; the works sample's table keeps the spec's, as when built on first start
    const sources = values["openalex-sources"];
    if (sub === "build")
      print(
        await runBuildJournals({
          dataRoot: config.dataRoot,
          openAlexSourcesDir: sources,
          outPath: journalsPath,
          ...(sources ? { boundsPath } : {}),
        }),
      );
    else if (sub === "bounds") print(await runComputeBounds({ journalsPath, outPath: boundsPath }));
    else throw new Error("journals build | journals bounds");
    return 0;
  }

  if (command === "ingest") {
    const config = loadConfig(env);
    if (await runningServer(config.dataDir))
      throw new Error("stop the server first: it holds the embedded index and store of this data directory");
    // the catalogue is the store's (seeded from the collections file on a first start)
    const { openEventStore, openCatalogue, openSearchEngine, openEmbedder } = await composition();
    const { ingestMissingDemoCollections } = await import("../demoIngest.js");
    const { default: pino } = await import("pino");
    const store = await openEventStore(config);
    const catalog = await openCatalogue(config, store, () => new Date());
    const engine = await openSearchEngine(config);
    const embedder = await openEmbedder(config);
    try {
      // no worker here: the pipeline builds each index whole, and the document manifest of a rebuilt index is cleared
      const reports = await ingestMissingDemoCollections(
        { config, catalog, engine, embedder, db: store, log: pino({ level: "warn" }) },
        values.force ?? false,
      );
      print(reports);
    } finally {
      catalog.close();
      await embedder.close();
      await engine.close();
      await store.close();
    }
    return 0;
  }

  // a named server, else the one running on this data directory, else its store (which must exist, or --init)
  const location = storeLocationFrom(env);
  const localUrl = target.url ? undefined : await runningServer(location.dataDir);
  if (!target.url && !localUrl) await requireStore(location, values.init ?? false);
  const config = target.url ? undefined : loadConfig(env);
  const remote: Remote | undefined = target.url
    ? { url: target.url, token: target.adminToken! }
    : localUrl
      ? { url: localUrl, token: target.adminToken ?? config!.adminToken }
      : undefined;
  const db = remote ? undefined : await (await composition()).openEventStore(config!);
  const ops: CliOperations = remote ? remoteOperations(remote) : await localStoreOperations(config!, db!);
  const billingMode = (): BillingMode | undefined => {
    const v = values["billing-mode"];
    if (v === undefined) return undefined;
    if (v !== "live" && v !== "trial" && v !== "exempt")
      throw new Error("--billing-mode must be live, trial or exempt");
    return v;
  };
  try {
    checkArguments(command, sub, rest);
    /** The operator commands by name (one word, or two): each runs once its positional arguments are checked. */
    const commands: Record<string, () => Promise<number>> = {
      ...alertCommands(ops, rest, { json: values.json ?? false, limit: () => intOpt(values.limit, "limit") }, (text) =>
        console.log(text),
      ),
      "org create": async () => {
        if (!values.name) throw new Error("--name is required");
        print(
          await ops.createOrganization({
            name: values.name,
            billingMode: billingMode() ?? "live",
            limits: limits(),
            hideBalance: values["hide-balance"],
            billingEnabled: values["billing-off"] ? false : undefined,
            trialQueries: intOpt(values["trial-queries"], "trial-queries"),
          }),
        );
        return 0;
      },
      "org list": async () => {
        printTable(
          "org list",
          await ops.listOrganizations({
            q: rest[0],
            limit: intOpt(values.limit, "limit") ?? 50,
            offset: intOpt(values.offset, "offset") ?? 0,
          }),
        );
        return 0;
      },
      "org show": async () => {
        print(await ops.getOrganization(rest[0] ?? ""));
        return 0;
      },
      "org limits": async () => {
        print(await ops.changeLimits(rest[0] ?? "", limits()));
        return 0;
      },
      "org billing": async () => {
        print(
          await ops.changeBillingSettings(rest[0] ?? "", {
            billingMode: billingMode(),
            trialQueries: intOpt(values["trial-queries"], "trial-queries"),
            billingEnabled: onOff(values.billing, "on", "off", "billing"),
            hideBalance: onOff(values.balance, "hidden", "shown", "balance"),
          }),
        );
        return 0;
      },
      "price set": async () => {
        print(await ops.setPrice(rest[0] ?? "", rest[1] ?? "", rest[2] ?? ""));
        return 0;
      },
      "price clear": async () => {
        print(await ops.setPrice(rest[0] ?? "", rest[1] ?? "", null));
        return 0;
      },
      "price list": async () => {
        printTable("price list", await ops.prices(rest[0] ?? ""));
        return 0;
      },
      "key show": async () => {
        print(await ops.getKey(rest[0] ?? ""));
        return 0;
      },
      "org suspend": async () => {
        print(await ops.setSuspended(rest[0] ?? "", true, values.reason));
        return 0;
      },
      "org resume": async () => {
        print(await ops.setSuspended(rest[0] ?? "", false));
        return 0;
      },
      "credits add": async () => {
        print(await ops.addCredits(rest[0] ?? "", rest[1] ?? "", values.reference));
        return 0;
      },
      "key create": async () => {
        if (values.mode !== "live" && values.mode !== "test") throw new Error("--mode live|test is required");
        print(
          await ops.createKey(rest[0] ?? "", {
            mode: values.mode,
            name: values.name,
            collections: values.collections
              ?.split(",")
              .map((s) => s.trim())
              .filter(Boolean),
            spendingCap: values["spending-cap"],
          }),
        );
        return 0;
      },
      "key revoke": async () => {
        print(await ops.revokeKey(rest[0] ?? ""));
        return 0;
      },
      "key cap": async () => {
        if (Boolean(values.clear) === (rest[1] !== undefined))
          throw new Error("usage: key cap KEY_ID AMOUNT, or key cap KEY_ID --clear");
        print(await ops.setSpendingCap(rest[0] ?? "", values.clear ? null : rest[1]!));
        return 0;
      },
      "member invite": async () => {
        const role = values.role ?? "member";
        if (role !== "owner" && role !== "member") throw new Error("--role must be owner or member");
        // a server builds the link from its own address; the local store from the configured one
        print(
          await ops.inviteMember(
            rest[0] ?? "",
            { email: rest[1] ?? "", role },
            config?.publicUrl ?? `http://${config?.host}:${config?.port}`,
          ),
        );
        return 0;
      },
      "member list": async () => {
        printTable("member list", await ops.members(rest[0] ?? ""));
        return 0;
      },
      "member remove": async () => {
        print(await ops.removeMember(rest[0] ?? "", rest[1] ?? ""));
        return 0;
      },
      "member cancel-invite": async () => {
        print(await ops.cancelInvite(rest[0] ?? "", rest[1] ?? ""));
        return 0;
      },
      "collection list": async () => {
        printTable("collection list", await ops.listCollections());
        return 0;
      },
      "collection add": async () => {
        let definition: unknown;
        try {
          definition = JSON.parse(readFileSync(rest[0]!, "utf8"));
        } catch (err) {
          throw new Error(`${rest[0]}: not a readable JSON collection definition (${(err as Error).message})`);
        }
        const source = (definition as { source?: { files?: unknown } }).source;
        if (target.url && source && Array.isArray(source.files)) {
          source.files = await uploadLocalFiles(
            ops,
            source.files.map(String),
            [process.cwd(), dirname(resolve(rest[0]!))],
            (line) => console.error(line),
          );
        }
        print(await ops.defineCollection(definition as never));
        return 0;
      },
      "collection change": async () => {
        print(
          await ops.changeCollection(
            rest[0]!,
            Object.fromEntries(
              Object.entries({
                displayName: values["display-name"],
                description: values.description,
                pricePer1000: values.price,
              }).filter(([, v]) => v !== undefined),
            ),
          ),
        );
        return 0;
      },
      "collection retire": async () => {
        print(await ops.retireCollection(rest[0]!));
        return 0;
      },
      "meta-collection set": async () => {
        if (!values["display-name"] || !values.members)
          throw new Error("usage: meta-collection set NAME --display-name TEXT --members a,b[,c] [--description TEXT]");
        print(
          (
            await ops.defineMetaCollection(rest[0]!, {
              displayName: values["display-name"],
              description: values.description ?? null,
              members: values.members
                .split(",")
                .map((m) => m.trim())
                .filter(Boolean),
            })
          ).metaCollection,
        );
        return 0;
      },
      "collection ingest": async () => {
        const files = (values.files ?? "")
          .split(",")
          .map((f) => f.trim())
          .filter((f) => f !== "");
        if (files.length === 0) throw new Error("usage: collection ingest NAME --files a,b [--mode upsert|replace]");
        const mode = values.mode ?? "upsert";
        if (mode !== "upsert" && mode !== "replace") throw new Error("--mode must be upsert or replace");
        const named = target.url
          ? await uploadLocalFiles(ops, files, [process.cwd()], (line) => console.error(line))
          : files;
        const started = await ops.ingestCollection(rest[0]!, { files: named, mode });
        if (!values.wait) {
          print(started);
          return 0;
        }
        const status = await followIngestion((id) => ops.ingestion(id), started.ingestionId, rest[0]!);
        print(status);
        return status.state === "completed" ? 0 : 1;
      },
      "webhook list": async () => {
        print(await ops.listWebhooks(rest[0]!));
        return 0;
      },
      "webhook create": async () => {
        if (!values.events) throw new Error("--events is required: a comma-separated list such as assisted.completed");
        print(
          await ops.createWebhook(rest[0]!, {
            url: rest[1]!,
            events: values.events
              .split(",")
              .map((e) => e.trim())
              .filter(Boolean),
            description: values.description,
          }),
        );
        return 0;
      },
      "webhook delete": async () => {
        print(await ops.deleteWebhook(rest[0]!, rest[1]!));
        return 0;
      },
      "webhook rotate-secret": async () => {
        print(await ops.rotateWebhookSecret(rest[0]!, rest[1]!));
        return 0;
      },
      "webhook test": async () => {
        print(await ops.testWebhook(rest[0]!, rest[1]!));
        return 0;
      },
      "webhook deliveries": async () => {
        print(await ops.webhookDeliveries(rest[0]!, rest[1]!, intOpt(values.limit, "limit")));
        return 0;
      },
      "ingestion show": async () => {
        print(await ops.ingestion(rest[0]!));
        return 0;
      },
      "ingestion cancel": async () => {
        print(await ops.cancelIngestion(rest[0]!));
        return 0;
      },
      upload: async () => {
        if (!remote)
          throw new Error(
            "upload sends a file to a running server: name it with --url URL --admin-token TOKEN, or start it on this data directory",
          );
        const path = resolve(sub ?? "");
        if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`${sub}: no such local file`);
        const [file] = await uploadLocalFiles(
          { ...ops, upload: (_name, body, bytes) => ops.upload(values.name ?? basename(path), body, bytes) },
          [path],
          [process.cwd()],
          (line) => console.error(line),
        );
        print({ file });
        return 0;
      },
      "retractions load": async () => {
        if (rest.length === 0) throw new Error("usage: retractions load FILE...");
        print(await ops.loadRetractions(rest));
        return 0;
      },
      balance: async () => {
        print(await ops.balance(sub ?? ""));
        return 0;
      },
      refund: async () => {
        print(await ops.issueRefund(sub ?? "", rest[0] ?? "", values.reference, values["query-id"]));
        return 0;
      },
      reconcile: async () => {
        const reports = sub
          ? [await ops.reconcile(sub, values.from, values.to)]
          : (await ops.reconcileAll(values.from, values.to)).organizations;
        print(reports);
        const bad = reports.reduce((s, r) => s + r.discrepancies.length, 0);
        console.log(
          `reconciled ${reports.length} organization(s): ${bad === 0 ? "no discrepancy" : `${bad} DISCREPANCIES`}`,
        );
        return bad === 0 ? 0 : 1;
      },
      ledger: async () => {
        const ledger = await ops.ledger(sub ?? "");
        if (values.csv) process.stdout.write(ledgerCsv(ledger.entries));
        else print(ledger);
        return 0;
      },
      replay: async () => {
        const report = await ops.replay();
        for (const t of report.tables)
          console.log(
            `${t.equal ? "equal  " : "DIFFERS"} ${t.table.padEnd(14)} rows=${String(t.rows).padStart(7)} live=${t.live.slice(0, 16)} rebuilt=${t.rebuilt.slice(0, 16)}`,
          );
        console.log(
          JSON.stringify({
            events: report.events,
            seconds: report.seconds,
            eventsPerSecond: report.eventsPerSecond,
            equal: report.equal,
          }),
        );
        if (!report.equal && values.promote && db) {
          const { promoteReplay } = await import("../../../projections/replay.js");
          await promoteReplay(db);
          console.log("live projections replaced by the rebuilt ones");
          return 0;
        }
        return report.equal ? 0 : 1;
      },
      verify: async () => {
        const verdict = await ops.verify();
        print(verdict);
        return verdict.ok ? 0 : 1;
      },
      "journal-requests": async () => {
        printTable("journal-requests", await ops.journalRequests());
        return 0;
      },
    };
    const run = commands[`${command} ${sub ?? ""}`.trim()] ?? commands[command];
    if (run) return await run();
    console.error(USAGE);
    return 2;
  } finally {
    await db?.close();
  }
}

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err) => {
    console.error(
      err instanceof Rejection ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err),
    );
    process.exit(1);
  },
);
