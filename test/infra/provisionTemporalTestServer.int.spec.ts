// scripts/provision-temporal-test-server.sh: leaves a provisioned server alone, and repairs a missing launcher and a
// class-data archive this java refuses without downloading the jars again.
import { cp, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cacheDirFrom } from "../../src/app/config.js";
import { readComponent } from "../../src/infra/components.js";
import { runProvisionScript } from "../support/provisionScript.js";

const script = resolve(import.meta.dirname, "../../scripts/provision-temporal-test-server.sh");
const realCache = cacheDirFrom(process.env);
const temporaryCaches: string[] = [];

/** As provision.sh runs it: on the manifest's java, checked with the provisioned Temporal CLI. */
function provision(cache: string) {
  const server = readComponent("temporalTestServer", realCache);
  const cli = readComponent("temporal", realCache).cli;
  return runProvisionScript(script, cache, 180_000, {
    TEMPORAL_TEST_SERVER_JAVA: server.java,
    TEMPORAL_CLI: cli,
    PROVISION_REVERIFY: "0",
  });
}

afterEach(async () => {
  for (const cache of temporaryCaches.splice(0)) await rm(cache, { recursive: true, force: true });
});

describe("scripts/provision-temporal-test-server.sh", () => {
  it("leaves the provisioned server as it is", async () => {
    const server = readComponent("temporalTestServer", realCache);
    const dir = join(realCache, "temporal-test-server");
    const before = {
      launcher: await readFile(server.executable, "utf8"),
      archive: (await stat(join(dir, "classes.jsa"))).mtimeMs,
    };
    const result = await provision(realCache);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`already installed: temporal-test-server ${server.version}`);
    expect(await readFile(server.executable, "utf8")).toBe(before.launcher);
    expect((await stat(join(dir, "classes.jsa"))).mtimeMs).toBe(before.archive);
  });

  it("rewrites a missing launcher, rebuilds a refused class-data archive from its jars, then leaves them", async () => {
    const cache = await mkdtemp(join(tmpdir(), "litsearch-test-server-provision-"));
    temporaryCaches.push(cache);
    const from = join(realCache, "temporal-test-server");
    const dir = join(cache, "temporal-test-server");
    await cp(join(from, "lib"), join(dir, "lib"), { recursive: true });
    await cp(join(from, "lib.stamp"), join(dir, "lib.stamp"));
    await writeFile(join(dir, "classes.jsa"), "not a class-data archive");

    const first = await provision(cache);
    expect(first.code, first.output).toBe(0);
    expect(first.output).not.toContain("downloading");
    expect(first.output).toContain(`wrote the launcher ${join(dir, "temporal-test-server")}`);
    expect(first.output).toContain("building the class-data archive");
    expect(first.output).toMatch(/check passed: listening after \d+\.\d+s .*described a workflow over gRPC/);
    expect(await readFile(join(dir, "temporal-test-server"), "utf8")).toContain(
      `-XX:SharedArchiveFile=${join(dir, "classes.jsa")}`,
    );

    const second = await provision(cache);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain("already installed: temporal-test-server");
  }, 180_000);
});
