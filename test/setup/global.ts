// Vitest globalSetup: starts the real Temporal dev server, PostgreSQL server and OpenSearch node once per run
// (TEST_COMPONENTS picks which; none for the unit tier alone) and provides their addresses.
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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

  // the unit tier alone leaves nothing behind: its files get a temp folder of their own (TMPDIR, inherited by the
  // workers), and whatever is left in it fails the run, named
  if (unitOnly) return privateTempFolder();

  const cacheDir = cacheDirFrom(process.env);
  const root = mkdtempSync(join(tmpdir(), "litsearch-test-"));
  // PostgreSQL runs as its own account when we are root; it must be able to enter this directory.
  chmodSync(root, 0o755);

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
  };

  const results = await Promise.allSettled(wanted.map(startOne));
  const failures = results.flatMap((result, i) =>
    result.status === "rejected"
      ? [`${wanted[i]}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`]
      : [],
  );
  if (failures.length > 0) {
    await stopAll();
    throw new Error(`test components failed to start (no test was run):\n${failures.join("\n\n")}`);
  }
  console.log(`[test components] started ${timings.length > 0 ? timings.join(", ") : "none"} under ${root}`);

  return stopAll;
}

/** A temp folder for the unit files alone; at the end, the run fails naming what they left there. */
function privateTempFolder(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "litsearch-unit-"));
  process.env.TMPDIR = dir;
  return async () => {
    const left = readdirSync(dir);
    rmSync(dir, { recursive: true, force: true });
    if (left.length === 0) return;
    process.exitCode = 1; // an error in a teardown alone does not fail the run
    throw new Error(
      `unit tests left ${left.join(", ")} in the temp folder: make folders with test/support/tempDirs.ts, ` +
        "which removes them after the file",
    );
  };
}
