// The operator CLI: `npm run cli -- <command>` (also the `litsearch` bin). Sends a command to the operator API of the
// server named by --url (or LITSEARCH_URL), else of the server running on this data directory, else opens that
// directory's store directly; a store that does not exist is created only when asked (--init). Its environment is read
// once, at the entry (the last lines), through src/app/config.ts.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  loadConfig,
  operatorTargetFrom,
  storeLocationFrom,
  type OperatorTarget,
  type StoreLocation,
} from "../config.js";
import { Rejection } from "../../domain/rejection.js";
import { printList } from "./tables.js";
import { composition, localStoreOperations, remoteOperations, type CliOperations, type Remote } from "./operations.js";
import { billingModeOf, limitsOf, parseCommandLine, type CommandContext, type Commands } from "./commandContext.js";
import { callerDirOf } from "./localPaths.js";
import { organizationCommands } from "./organizationCommands.js";
import { collectionCommands } from "./collectionCommands.js";
import { webhookCommands } from "./webhookCommands.js";
import { ALERT_ARGUMENTS, ALERT_USAGE, alertCommands } from "./alertCommands.js";
import { bookCommands } from "./bookCommands.js";

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
  meta-collection retire NAME              its searches answer 404 from now on; its members stay
  ingest [--force]                         index the configured collections (skips those already indexed)
  replay [--promote]                       rebuild every projection from position 0 and compare with the live ones
  verify                                   check the event log's hash chain
  journal-requests                         journals clients asked us to add, most requested first
  collection ingest NAME --files a,b [--mode upsert|replace] [--wait]   ingest source files into a plain collection
                                           while the running service answers (upsert: add, change, delete by document;
                                           replace: the collection becomes exactly the files); prints the ingestion id,
                                           or with --wait follows it (documents and chunks done, rate, finish time) and
                                           prints how it ended (exit 1 when it failed)
  ingestion show INGESTION_ID              an ingestion's state and counts (documents added, updated, deleted,
                                           unchanged)
  ingestion cancel INGESTION_ID            stop a running ingestion (recorded failed: cancelled); its collection can be
                                           ingested again or retired
  upload FILE [--name NAME]               send a local file to the server's data root (uploads/NAME, by default the
                                           file's name), for a collection definition or an ingestion to name; with
                                           --url, collection add and collection ingest upload their local files
                                           themselves
  uploads list                             the files uploaded to the server's data root, with size and time stored
  uploads delete NAME                      delete an upload (refused while a running ingestion reads it); names the
                                           collections whose definitions still name it
  webhook list ORG_ID                      the organization's webhook endpoints (the running service's;
                                           docs/webhooks.md)
  webhook create ORG_ID URL --events a,b [--description TEXT]
                                           registers an endpoint; prints its signing secret, shown once
  webhook delete|rotate-secret|test|deliveries ORG_ID ENDPOINT_ID
                                           deletes it, rotates its secret, sends it a test event, lists its deliveries
  webhook redeliver ORG_ID ENDPOINT_ID EVENT_ID
                                           sends an ended delivery again, with the same webhook-id
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
tables; --json prints the operator API's JSON instead.

Which server or store:
  --url URL --admin-token TOKEN   send the command to that server's operator API (or LITSEARCH_URL and ADMIN_TOKEN)
  otherwise                       the server running on DATA_DIR (its server.json), else the store of DATA_DIR or
                                  DATABASE_URL opened directly; one that does not exist is refused unless --init

Environment: LITSEARCH_URL, ADMIN_TOKEN, DATA_DIR, DATABASE_URL, OPENSEARCH_URL (see docs/operations.md).`;

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

/**
 * Refuses to open a store that is not there (which would create it) unless --init: the command names where it looked.
 */
async function requireStore(location: StoreLocation, init: boolean): Promise<void> {
  const { eventStoreExists, describeStoreLocation } = await composition();
  if (init || (await eventStoreExists(location))) return;
  throw new Error(
    `no litsearch store at ${describeStoreLocation(location)}, and no server running on ${location.dataDir} ` +
      `(no answering ${join(location.dataDir, "server.json")}). ` +
      ("Send the command to a server with --url URL --admin-token TOKEN (or LITSEARCH_URL and ADMIN_TOKEN), " +
        "point DATA_DIR or DATABASE_URL at an existing store, ") +
      "or pass --init to create a new store there.",
  );
}

/**
 * The positional arguments of the operator commands, in order (`?`: optional); a command is refused before it runs
 * otherwise.
 */
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
  "meta-collection retire": ["NAME"],
  "collection ingest": ["NAME"],
  "ingestion show": ["INGESTION_ID"],
  "ingestion cancel": ["INGESTION_ID"],
  upload: ["FILE"],
  "uploads list": [],
  "uploads delete": ["NAME"],
  "webhook list": ["ORG_ID"],
  "webhook create": ["ORG_ID", "URL"],
  "webhook delete": ["ORG_ID", "ENDPOINT_ID"],
  "webhook rotate-secret": ["ORG_ID", "ENDPOINT_ID"],
  "webhook test": ["ORG_ID", "ENDPOINT_ID"],
  "webhook deliveries": ["ORG_ID", "ENDPOINT_ID"],
  "webhook redeliver": ["ORG_ID", "ENDPOINT_ID", "EVENT_ID"],
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

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  const [command, sub, ...rest] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const target: OperatorTarget = operatorTargetFrom({ url: values.url, adminToken: values["admin-token"] }, env);
  const print = (v: unknown) => console.log(JSON.stringify(v, null, 2));
  const printTable = (command: string, v: unknown) => console.log(printList(command, v, values.json ?? false));

  if ((command === "journals" || command === "ingest") && target.url)
    throw new Error(
      `${command} runs beside the server's data, not through its API: run it without --url (or LITSEARCH_URL) ` +
        "on the server's machine",
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
      // no worker here: the ingestion workflow's steps run in this process (src/app/ingestInProcess.ts)
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
  try {
    checkArguments(command, sub, rest);
    const context: CommandContext = {
      values,
      sub,
      rest,
      callerDir: callerDirOf(env, process.cwd()),
      ops,
      target,
      remote,
      config,
      db,
      print,
      printTable,
      limits: () => limitsOf(values),
      billingMode: () => billingModeOf(values),
    };
    const commands: Commands = {
      ...organizationCommands(context),
      ...collectionCommands(context),
      ...webhookCommands(context),
      ...alertCommands(context),
      ...bookCommands(context),
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
