// Vitest globalSetup: starts the real Temporal dev server, PostgreSQL server and OpenSearch node once per run
// (TEST_COMPONENTS picks which; none for the unit tier alone) and provides their addresses.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startOpenSearchNode } from "../../src/infra/opensearchNode.js";
import { startPostgresServer } from "../../src/infra/postgresServer.js";
import { startTemporalDevServer } from "../../src/infra/temporalDevServer.js";
import { readComponent } from "../../src/infra/components.js";
import { cacheDirFrom } from "../../src/app/config.js";
import { parseTestComponents, UNIT_PROJECT, type TestComponentName } from "./componentSelection.js";
import { SHARED_PROJECT } from "./sharedTier.js";
import "./components.js"; // the ProvidedContext declarations

interface Started {
  name: TestComponentName;
  stop(): Promise<void>;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // the unit tier alone (npm run test:unit) needs no component, nor does the shared tier: run without the others, none
  // starts, and a unit file that reaches for one fails
  const unitOnly = project.vitest.projects.every((p) => p.name === UNIT_PROJECT || p.name === SHARED_PROJECT);
  const selection = unitOnly ? "none" : (process.env.TEST_COMPONENTS ?? "");
  const wanted = parseTestComponents(selection);
  project.provide("testComponents", selection);

  // every tier's files get a temp folder of their own (TMPDIR, inherited by the workers and the processes they start),
  // and what is left in it fails the run, named
  if (unitOnly) return privateTempFolder("unit");

  const cacheDir = cacheDirFrom(process.env);
  // the components' folder is made before TMPDIR moves: the private folder's check is for what the tests leave
  const root = mkdtempSync(join(tmpdir(), "litsearch-test-"));
  // PostgreSQL runs as its own account when we are root; it must be able to enter this directory.
  chmodSync(root, 0o755);
  const checkTempFolder = privateTempFolder("int and e2e");

  const started: Started[] = [];
  const timings: string[] = [];
  const startOne = async (name: TestComponentName): Promise<void> => {
    const t0 = performance.now();
    switch (name) {
      case "temporal": {
        const server = await startTemporalDevServer({
          dataDir: join(root, "temporal"),
          component: readComponent("temporal", cacheDir),
        });
        started.push({ name, stop: server.stop });
        project.provide("temporalAddress", server.address);
        project.provide("temporalNamespace", server.namespace);
        break;
      }
      case "postgres": {
        const server = await startPostgresServer({
          dataDir: join(root, "postgres"),
          component: readComponent("postgres", cacheDir),
        });
        started.push({ name, stop: server.stop });
        project.provide("postgresUrl", server.url);
        break;
      }
      case "opensearch": {
        const node = await startOpenSearchNode({
          dataDir: join(root, "opensearch"),
          component: readComponent("opensearch", cacheDir),
        });
        started.push({ name, stop: node.stop });
        project.provide("opensearchUrl", node.url);
        break;
      }
    }
    timings.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)}s`);
  };

  // Ctrl-C or a crash skips the teardown below; the servers then stop on their own (see supervisedProcess.ts), and the
  // files go here.
  const removeRoot = (): void => {
    if (process.env.KEEP_TEST_DATA !== "1") rmSync(root, { recursive: true, force: true });
  };
  process.once("exit", removeRoot);

  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(started.map((component) => component.stop()));
    removeRoot();
    await checkTempFolder();
  };

  const results = await Promise.allSettled(wanted.map(startOne));
  const failures = results.flatMap((result, i) =>
    result.status === "rejected"
      ? [`${wanted[i]}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`]
      : [],
  );
  if (failures.length > 0) {
    // a component that failed may leave files in the temp folder: the start failure is the error to show
    await stopAll().catch((error: unknown) => console.warn(error instanceof Error ? error.message : String(error)));
    throw new Error(`test components failed to start (no test was run):\n${failures.join("\n\n")}`);
  }
  console.log(`[test components] started ${timings.length > 0 ? timings.join(", ") : "none"} under ${root}`);

  return stopAll;
}

/**
 * What processes that load onnxruntime (the embedding model) write in the temp folder, whatever the test: its telemetry
 * library's empty debug log and session file. They go with the folder, unnamed.
 */
const RUNTIME_DROPPINGS = /^(mat-debug-\d+\.log|\.ses)$/;

/** tsx's folder (its compile cache and IPC sockets) in the temp folder: `tsx-` and the effective user id. */
const TSX_CACHE = `tsx-${process.geteuid?.() ?? userInfo().username}`;

/**
 * A temp folder of the run's own (TMPDIR from here on, for the test workers and what they start); the returned
 * teardown removes it and fails the run on what the tests left there, named. KEEP_TEST_DATA=1 keeps it (and only
 * warns: the kept folders are what it asked for).
 */
function privateTempFolder(tier: string): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "litsearch-tmp-"));
  // PostgreSQL servers that tests start on folders made here run as their own account when we are root
  chmodSync(dir, 0o755);
  // the processes tests start with `node --import tsx` keep their compile cache in the system's temp folder, shared
  // between runs: a new one each run would compile src/ again in every such process
  const shared = join(tmpdir(), TSX_CACHE);
  mkdirSync(shared, { recursive: true });
  symlinkSync(shared, join(dir, TSX_CACHE));
  process.env.TMPDIR = dir;
  const keep = process.env.KEEP_TEST_DATA === "1";
  const remove = (): void => {
    if (!keep) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  process.once("exit", remove); // Ctrl-C or a crash skips the teardown
  return async () => {
    const left = readdirSync(dir).filter((name) => name !== TSX_CACHE && !RUNTIME_DROPPINGS.test(name));
    if (keep) console.warn(`[temp folder] KEEP_TEST_DATA=1: the ${tier} tests' temp folder is kept: ${dir}`);
    remove();
    if (left.length === 0) return;
    const message =
      `${tier} tests left ${left.join(", ")} in the temp folder${keep ? " (kept: KEEP_TEST_DATA=1)" : ""}: make ` +
      "folders with test/support/tempDirs.ts, which removes them after the file";
    if (keep) {
      console.warn(`\n${"!".repeat(100)}\n[temp folder] ${message}\n${"!".repeat(100)}\n`);
      return;
    }
    process.exitCode = 1; // an error in a teardown alone does not fail the run
    throw new Error(message);
  };
}
