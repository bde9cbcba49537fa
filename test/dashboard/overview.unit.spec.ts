// The overview's rules: the credit price read from configuration, money in its currency, the days a balance lasts, the
// getting-started steps and the first search in each client.
import { describe, expect, it } from "vitest";
import {
  firstSearchSnippets,
  gettingStarted,
  inCurrency,
  parseCreditPrice,
  projectedDaysLeft,
} from "../../src/usecases/dashboard/overviewRules.js";
import { overviewPage } from "../../src/http/dashboard/overviewPage.js";

describe("the credit price", () => {
  it('reads "0.10 USD", none when empty, and refuses what is not an amount and a currency code', () => {
    expect(parseCreditPrice("0.10 usd")).toEqual({ microsPerCredit: 100_000n, currency: "USD" });
    expect(parseCreditPrice(" 2 EUR ")).toEqual({ microsPerCredit: 2_000_000n, currency: "EUR" });
    expect(parseCreditPrice(undefined)).toBeNull();
    expect(parseCreditPrice("")).toBeNull();
    expect(() => parseCreditPrice("$0.10")).toThrow(/such as "0.10 USD"/);
    expect(() => parseCreditPrice("0.1234567 USD")).toThrow(/DASHBOARD_CREDIT_PRICE/);
    expect(() => parseCreditPrice("0 USD")).toThrow(/more than zero/);
  });

  it("shows credits in the currency, rounded half up to cents", () => {
    const usd = parseCreditPrice("0.10 USD")!;
    expect(inCurrency(25_000_000n, usd)).toBe("2.50 USD");
    expect(inCurrency(67_680n, usd)).toBe("0.01 USD"); // 0.006768 → 0.01
    expect(inCurrency(49_999n, usd)).toBe("0.00 USD");
    expect(inCurrency(-25_000_000n, usd)).toBe("-2.50 USD");
    expect(inCurrency(9_619_010n, parseCreditPrice("1.5 EUR")!)).toBe("14.43 EUR");
  });
});

describe("the days a balance lasts", () => {
  it("divides the balance by the average daily spend of the days given", () => {
    const days = Array.from({ length: 30 }, (_, i) => (i >= 20 ? 300_000n : 0n)); // 3 credits over 30 days
    expect(projectedDaysLeft(10_000_000n, days)).toBe(100);
    expect(projectedDaysLeft(10_000_000n, Array(30).fill(0n))).toBeNull();
    expect(projectedDaysLeft(0n, days)).toBe(0);
    expect(projectedDaysLeft(-5n, days)).toBe(0);
  });
});

describe("getting started", () => {
  it("is done once there is a key and a search", () => {
    expect(gettingStarted({ keys: 0, searches: 0 }).map((s) => s.done)).toEqual([false, false, false]);
    expect(gettingStarted({ keys: 1, searches: 0 }).map((s) => s.done)).toEqual([true, false, false]);
    expect(gettingStarted({ keys: 1, searches: 2 }).every((s) => s.done)).toBe(true);
  });

  it("gives the first search in curl, Python and each MCP client, the key from the environment", () => {
    const snippets = firstSearchSnippets("https://lit.example", "scifact");
    expect(snippets.map((s) => s.label)).toEqual([
      "curl",
      "Python SDK",
      "Claude Code",
      "Cursor (.cursor/mcp.json)",
      "Claude Desktop (claude_desktop_config.json)",
    ]);
    expect(snippets[0]!.text).toContain("https://lit.example/api/v1/search/query");
    expect(snippets[0]!.text).toContain('"collection":"scifact"');
    expect(snippets[2]!.text).toContain("https://lit.example/mcp");
    expect(JSON.parse(snippets[3]!.text).mcpServers.litsearch.headers.Authorization).toBe(
      "Bearer ${env:LITSEARCH_API_KEY}",
    );
    expect(JSON.parse(snippets[4]!.text).mcpServers.litsearch.args).toContain("https://lit.example/mcp");
    for (const s of snippets) expect(s.text).not.toMatch(/sk_live_[A-Za-z0-9]{10}/);
  });

  it("writes a just-created key in where each client reads it, and nothing of the environment variable is left", () => {
    const key = "sk_live_" + "A1b2".repeat(10);
    const snippets = firstSearchSnippets("https://lit.example", "scifact", key);
    for (const s of snippets) expect(s.text).toContain(key);
    for (const s of snippets.slice(0, 4)) expect(s.text).not.toContain("LITSEARCH_API_KEY");
    expect(snippets[0]!.text).toContain(`-H "Authorization: Bearer ${key}"`);
    expect(JSON.parse(snippets[3]!.text).mcpServers.litsearch.headers.Authorization).toBe(`Bearer ${key}`);
    const desktop = JSON.parse(snippets[4]!.text).mcpServers.litsearch;
    expect(desktop.env).toEqual({ LITSEARCH_API_KEY: key });
    expect(desktop.args).toContain("Authorization: Bearer ${LITSEARCH_API_KEY}");
  });
});

describe("the overview page", () => {
  const viewer = {
    principal: { kind: "member" as const, memberId: "m1", orgId: "o1", role: "owner" as const },
    email: "a@b.example",
    orgName: "Lab",
    csrfToken: "tok",
  };
  const org = {
    id: "o1",
    name: "Lab",
    billingMode: "live",
    billingEnabled: true,
    hideBalance: false,
    trialQueries: 0,
    trialUsed: 0,
    suspended: false,
    balanceMicros: 9_619_010n,
    limits: { daily: 1000, monthly: 30000 },
  } as unknown as Parameters<typeof overviewPage>[1]["org"];
  const data = {
    org,
    today: { queries: 1, limit: 1000 },
    month: { queries: 3, limit: 30000, spendMicros: 380_990n, tokens: 1234n },
    lowBalance: false,
    disabledWebhooks: [],
  };
  const evil = "<script>alert(1)</script>";
  const extras = (over: Partial<Parameters<typeof overviewPage>[2]> = {}) => ({
    usage: { days: ["2031-05-05", "2031-05-06"], rows: [] },
    keys: 0,
    alerts: [],
    endpoints: [],
    creditPrice: null,
    baseUrl: "https://lit.example",
    collection: "scifact",
    ...over,
  });

  it("shows money beside credits with a credit price, the days left, a chart, the getting-started panel", () => {
    const spendDay = {
      day: "2031-05-06",
      collection: "scifact",
      searches: 2,
      unlockedResults: 0,
      tokens: 10n,
      spendMicros: 1_000_000n,
    };
    const page = overviewPage(
      viewer,
      data,
      extras({ creditPrice: parseCreditPrice("0.10 USD"), usage: { days: ["2031-05-05", "2031-05-06"], rows: [] } }),
    ).text;
    expect(page).toContain('<dd id="balance">9.619010 credits <small class="money">(0.96 USD)</small></dd>');
    expect(page).toContain("no spend in 30 days");
    expect(page).toContain('id="getting-started"');
    expect(page).toContain("$LITSEARCH_API_KEY");
    expect(page).not.toContain("<script>alert");
    const used = overviewPage(viewer, data, extras({ keys: 1, usage: { days: ["2031-05-06"], rows: [spendDay] } }));
    expect(used.text).not.toContain('id="getting-started"');
    expect(used.text).toContain('<dd id="balance">9.619010 credits</dd>');
    expect(used.text).toContain('<dd id="days-left">about 9 days</dd>');
    expect(used.text).toMatch(/<rect class="bar"[^>]*data-day="2031-05-06" data-series="searches" data-value="2"/);
  });

  it("names failing endpoints and paused alerts, escaping what members typed", () => {
    const page = overviewPage(
      viewer,
      data,
      extras({
        alerts: [
          { id: "al_1", query: evil, status: "paused", pausedReason: null },
          { id: "al_2", query: "fine", status: "active", pausedReason: null },
        ] as unknown as Parameters<typeof overviewPage>[2]["alerts"],
        endpoints: [
          { id: "we_1", url: `https://h.example/${evil}`, status: "enabled", failingSince: "2031-05-01T10:00:00Z" },
          { id: "we_2", url: "https://ok.example", status: "enabled", failingSince: null },
        ] as unknown as Parameters<typeof overviewPage>[2]["endpoints"],
      }),
    ).text;
    expect(page).toContain("1 of 2 alerts active; 1 of 2 webhook endpoints delivering.");
    expect(page).toContain("is failing since 2031-05-01 10:00:00 UTC");
    expect(page).toContain('<a href="/dashboard/alerts/al_1">&lt;script&gt;alert(1)&lt;/script&gt;</a> is paused');
    expect(page).not.toContain("<script>alert");
  });
});
