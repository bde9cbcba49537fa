// The per-request CPU breakdown of bench:speed --profile: samples inside the window only, each charged to the innermost
// frame of ours on its stack, or to its library when none of ours is on it; idle time is not CPU time.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SOURCE_CATEGORIES, SOURCE_PHASES, summarizeCategories, summarizeProfile } from "../../bench/cpuProfile.js";

const dir = mkdtempSync(join(tmpdir(), "cpu-profile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});
const SRC = "file:///work/repo/src";
const MODULES = "file:///work/repo/node_modules";

/**
 * A tree: root -> route handler -> billing (-> pg -> native), root -> pg parser -> native, root -> koa respond, root ->
 * node:net, GC, idle.
 */
const profile = {
  nodes: [
    frame(1, "(root)", "", [2, 6, 8, 9, 10, 11, 12]),
    frame(2, "searchRoute", `${SRC}/http/routes/searchRoutes.ts`, [3]),
    frame(3, "appendCharge", `${SRC}/usecases/accounts/chargeBatch.ts`, [4]),
    frame(4, "query", `${MODULES}/pg/lib/client.js`, [5]),
    frame(5, "writeUtf8String", "node:buffer"),
    frame(6, "parseMessage", `${MODULES}/pg-protocol/dist/parser.js`, [7]),
    frame(7, "readUInt32BE", "node:buffer"),
    frame(8, "respond", `${MODULES}/koa/lib/application.js`),
    frame(9, "onStreamRead", "node:internal/stream_base_commons"),
    frame(10, "(garbage collector)", ""),
    frame(11, "(idle)", ""),
    frame(12, "(program)", ""),
  ],
  startTime: 1_000_000,
  // one sample per millisecond, each standing for the time up to the next: the first (1,001,000) is before the window
  // below, the last has no next
  samples: [5, 5, 7, 8, 9, 10, 11, 12, 3],
  timeDeltas: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000],
};
const file = join(dir, "main.cpuprofile");
writeFileSync(file, JSON.stringify(profile));

describe("CPU profile summary", () => {
  it('charges to phases only paths that exist under src/ (a moved module would fall to "other service code")', () => {
    const src = join(import.meta.dirname, "../../src");
    for (const [prefix] of [...SOURCE_PHASES, ...SOURCE_CATEGORIES]) {
      const path = join(src, prefix);
      const exists = prefix.endsWith("/")
        ? existsSync(path)
        : existsSync(dirname(path)) && readdirSync(dirname(path)).some((entry) => entry.startsWith(basename(path)));
      expect(exists, prefix).toBe(true);
    }
  });

  it("charges each sample in the window to a phase of the request, idle left out", () => {
    const summary = summarizeProfile(file, 1_001_500, 1_010_000);
    expect(Object.fromEntries(summary.byPhase)).toEqual({
      // node:buffer under our billing code (through pg), and under the pg parser with none of our frames on its stack:
      // the innermost package's phase, not Node's module's
      "billing append": 2,
      // koa's respond and a socket read
      "HTTP and sockets": 2,
      "garbage collection": 1,
      "V8 and native": 1,
    });
    expect(summary.busyMs).toBe(6);
  });

  it("charges each sample to a category of issue 54: pg under billing code, koa, sockets, GC, and its function", () => {
    const summary = summarizeCategories(file, 1_001_500, 1_010_000);
    expect(Object.fromEntries(summary.byCategory)).toEqual({
      // node:buffer called by pg under our billing code, and pg's parser with none of our frames on its stack
      "billing append": 2,
      // koa's respond, and a socket read outside any package
      "HTTP/Koa/middleware": 2,
      "garbage collection": 1,
      "V8 and native": 1,
    });
    expect(summary.busyMs).toBe(6);
    expect(summary.byFunction.get("respond lib/application.js")).toBe(1);
  });
});
