// The README's quickstart, run as written: its shell blocks against `src/app/main.ts` started as `npm run up` starts
// it, its MCP configuration with the official client.
import { execFile, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { cacheDirFrom, REPO_ROOT } from "../../src/app/config.js";
import { startMain } from "../support/mainProcess.js";
import { sliceDataRoot } from "../support/testService.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

const run = promisify(execFile);
/** The address the quickstart is written for; the test's service listens on a free port instead. */
const DOCUMENTED_BASE = "http://127.0.0.1:8080";

interface Quickstart {
  shell: string[];
  mcpConfig: string;
}

/** The fenced blocks of README.md's "## Quickstart" section, in order. */
function readQuickstart(): Quickstart {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n## Quickstart\n");
  if (start < 0) throw new Error('README.md has no "## Quickstart" section');
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
  const json = blocks.filter((b) => b.lang === "json");
  if (json.length !== 1)
    throw new Error(`the quickstart should hold one MCP configuration, found ${json.length} json blocks`);
  return { shell: blocks.filter((b) => b.lang === "bash").map((b) => b.body), mcpConfig: json[0]!.body };
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("README quickstart", () => {
  it("runs as written: org, credits, key, paid search, preview and unlock, ledger, Python SDK, MCP", async () => {
    const quickstart = readQuickstart();
    // The first block starts the service; the test starts the same entry point itself (on a slice of the demo data).
    expect(quickstart.shell[0]!.trim().split("\n")[0]).toMatch(/^npm run up\b/);
    const work = tempDir("litsearch-quickstart-");
    const dataDir = join(work, "data"); // the quickstart reads `data/admin-token` from the clone's folder
    mkdirSync(dataDir);
    const service = await startMain(dataDir, await sliceDataRoot(40));
    children.push(service.child);

    const script = ["set -euo pipefail", ...quickstart.shell.slice(1), 'printf "\\n__KEY=%s\\n" "$KEY"']
      .join("\n")
      .replaceAll(DOCUMENTED_BASE, service.url);
    // `pip` and `python3` are the provisioned virtualenv's, which already holds the pinned SDK (nothing is downloaded).
    const venvBin = join(cacheDirFrom(process.env), "venv-redpine-sdk", "bin");
    const result = await run("bash", ["-c", script], {
      cwd: work,
      env: { ...process.env, PATH: `${venvBin}:${process.env.PATH}`, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
      timeout: 300_000,
      maxBuffer: 16 << 20,
    }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`the quickstart failed: ${err.message}\n--- stdout\n${err.stdout}\n--- stderr\n${err.stderr}`);
    });
    const out = result.stdout;

    // step 3: credits added
    expect(out).toContain('{"balance":"25.000000"}');
    // step 4: a paid search says what it cost, and the balance dropped by it
    const cost = /x-query-cost: (\d+\.\d{6})/i.exec(out)?.[1];
    const remaining = /x-credits-remaining: (\d+\.\d{6})/i.exec(out)?.[1];
    expect(Number(cost)).toBeGreaterThan(0);
    expect(Number(remaining)).toBeCloseTo(25 - Number(cost), 6);
    expect(out).toMatch(/\{"relevance":0\.\d+,"title":"[^"]+"\}/);
    // step 5: a preview of locked rows, then one row paid for and unlocked
    const preview = JSON.parse(/^\{"queryId".*$/m.exec(out)![0]) as {
      first: { id: string; locked: boolean; cost: string };
    };
    expect(preview.first.locked).toBe(true);
    const unlock = JSON.parse(/^\{"costCharged".*$/m.exec(out)![0]) as { costCharged: string; unlocked: string[] };
    expect(unlock).toEqual({ costCharged: preview.first.cost, unlocked: [preview.first.id] });
    // step 6: the ledger holds the credit and the charges
    expect(out).toMatch(/"type":"credit"/);
    expect(out).toMatch(/"type":"charge"/);
    // the Python SDK: rows with their relevance, and the quota
    expect(out).toMatch(/^0\.\d+ \S.*$/m);
    expect(out).toContain("QuotaInfo(daily_limit=1000");

    // the MCP configuration, with the key the quickstart made, through the official client
    const key = /__KEY=(\S+)/.exec(out)![1]!;
    const config = JSON.parse(
      quickstart.mcpConfig.replaceAll(DOCUMENTED_BASE, service.url).replace("sk_live_...", key),
    ) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
    };
    const server = Object.values(config.mcpServers)[0]!;
    expect(server.type).toBe("http");
    const client = new Client({ name: "quickstart", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
    );
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["get_balance", "preview", "confirm", "call-tool"]));
    const balance = await client.callTool({ name: "get_balance", arguments: {} });
    expect(balance.isError).toBeFalsy();
    await client.close();
  }, 600_000);
});
