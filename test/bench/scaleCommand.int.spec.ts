// The scale benchmark's contract: `npm run bench:scale -- --engine embedded|opensearch --chunks N --json` prints
// exactly one JSON line with the fields the README's scale table is made from. Run small (2,000 chunks replicated from
// 200 SciFact abstracts embedded by the real model), on the embedded engine and on a node of its own with the k-NN
// plugin.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { LATENCY_KEYS, scaleReportSchema } from "../../bench/scaleBench.js";

const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), "bench-scale-"));
const CHUNKS = 2000;
/** not the service's default, so the report shows the one the queries were asked with */
const EF_SEARCH = 150;

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The command as an operator types it (npm run), small enough for CI; stdout must be one JSON line. */
async function benchScale(engine: string): Promise<{ lines: string[]; report: unknown }> {
  const args = [
    "run",
    "--silent",
    "bench:scale",
    "--",
    "--engine",
    engine,
    "--chunks",
    String(CHUNKS),
    "--json",
    "--sources",
    "200",
    "--queries",
    "10",
    "--rounds",
    "2",
    "--work-dir",
    workDir,
  ];
  if (engine === "opensearch") args.push("--heap", "512m", "--ef-search", String(EF_SEARCH));
  const { stdout } = await run("npm", args, { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });
  const lines = stdout.split("\n").filter((line) => line.trim().length > 0);
  return { lines, report: JSON.parse(lines[lines.length - 1]!) };
}

describe("npm run bench:scale -- --json", () => {
  for (const engine of ["embedded", "opensearch"] as const) {
    it(`prints one JSON line with the contract's fields on ${engine}`, async () => {
      const { lines, report } = await benchScale(engine);
      expect(lines).toHaveLength(1);
      const parsed = scaleReportSchema.parse(report);
      expect(parsed.engine).toBe(engine);
      expect(parsed.chunks).toBe(CHUNKS);
      expect(parsed.knn).toBe(engine === "embedded" ? "exact" : "lucene-hnsw");
      expect(Object.keys(parsed.latencyMs).sort()).toEqual([...LATENCY_KEYS].sort());
      for (const key of LATENCY_KEYS)
        expect(parsed.latencyMs[key].p95).toBeGreaterThanOrEqual(parsed.latencyMs[key].p50);
      expect(parsed.rounds).toBe(2);
      expect(parsed.memory.kind).toBe(engine === "embedded" ? "rss" : "jvm-heap");
      expect(parsed.memory.usedMB).toBeGreaterThan(0);
      expect(parsed.indexSeconds).toBeGreaterThan(0);
      expect(parsed.segments === null).toBe(engine === "embedded");
      expect(parsed.hnsw?.efSearch ?? null).toBe(engine === "embedded" ? null : EF_SEARCH);
      // 2,000 chunks: the exact engine finds the exact top 10, and the graph at this size as well
      expect(parsed.recallAt10VsExact).toBeGreaterThanOrEqual(engine === "embedded" ? 1 : 0.98);
      expect(parsed.recallAt10VsExactFiltered).toBeGreaterThanOrEqual(engine === "embedded" ? 1 : 0.98);
      expect(parsed.queries).toBe(10);
    }, 600_000);
  }
});
