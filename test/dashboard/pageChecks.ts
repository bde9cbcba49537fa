// What the Chromium test checks on every dashboard page: axe-core's accessibility rules (WCAG 2.1 A and AA) and that
// nothing runs wider than the window, at a desktop's and a phone's width. axe-core is evaluated as a string in the
// page: the pages' Content-Security-Policy refuses an injected <script>, and the check must not weaken it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The widths every page is checked at: a desktop's and a phone's. */
export const CHECK_WIDTHS = [
  [1400, 1000],
  [375, 800],
] as const;

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's violations on the page, one line each (rule, what it asks, the first elements it found). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v) => ({
      id: v.id,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  const where = (n: { target: string[]; failureSummary?: string }) =>
    `${n.target.join(" ")} ${n.failureSummary?.split("\n")[1] ?? ""}`;
  return violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map(where).join("; ")}`);
}

/** How far the page runs past the window's width (0 or less: nothing overflows), and the widest element's name. */
export async function overflow(page: Page): Promise<{ by: number; widest: string }> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: any }).document;
    const width = (globalThis as unknown as { innerWidth: number }).innerWidth;
    let widest = "";
    let right = 0;
    for (const el of doc.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect().right;
      if (r > right && !el.closest(".scroll")) {
        right = r;
        widest = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className ? `.${el.className}` : ""}`;
      }
    }
    return { by: doc.documentElement.scrollWidth - width, widest: right > width ? widest : "" };
  });
}

/**
 * Opens `path` at each width and reports what fails there: axe-core's violations and an overflow, as lines naming
 * the page and the width (an empty list when the page passes); with `shotsDir`, a full-page screenshot of each width.
 */
export async function checkPage(page: Page, path: string, shotsDir?: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [width, height] of CHECK_WIDTHS) {
    await page.setViewportSize({ width, height });
    await page.goto(path);
    for (const v of await axeViolations(page)) problems.push(`${path} at ${width} px: ${v}`);
    if (shotsDir) {
      const name =
        path
          .replace(/^\/dashboard\/?/, "")
          .replace(/[^a-z0-9]+/gi, "-")
          .replace(/^-|-$/g, "") || "overview";
      await page.screenshot({ path: join(shotsDir, `${name.slice(0, 60)}-${width}.png`), fullPage: true });
    }
    const o = await overflow(page);
    if (o.by > 0) problems.push(`${path} at ${width} px runs ${o.by} px wider than the window (${o.widest})`);
  }
  return problems;
}
