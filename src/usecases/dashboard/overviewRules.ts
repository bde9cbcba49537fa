// The overview's rules: the days a balance lasts at the current rate of spend, credits in the operator's currency, the
// getting-started steps, and the first search as curl, Python SDK and MCP configuration. Pure, with unit tests.

/** What one credit costs in a currency (the operator's DASHBOARD_CREDIT_PRICE, e.g. "0.10 USD"). */
export interface CreditPrice {
  /** the price of one credit in millionths of the currency unit */
  microsPerCredit: bigint;
  /** an ISO 4217 code, upper case */
  currency: string;
}

/** Reads "0.10 USD" (an amount with up to six decimals, a three-letter currency code); empty: none. */
export function parseCreditPrice(text: string | undefined): CreditPrice | null {
  const t = text?.trim() ?? "";
  if (t === "") return null;
  const m = /^(\d{1,9})(?:\.(\d{1,6}))?\s+([A-Za-z]{3})$/.exec(t);
  if (!m)
    throw new Error(
      `DASHBOARD_CREDIT_PRICE must be an amount and a currency code, such as "0.10 USD" (it is "${t.slice(0, 40)}")`,
    );
  const micros = BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? "").padEnd(6, "0"));
  if (micros === 0n) throw new Error("DASHBOARD_CREDIT_PRICE must be more than zero");
  return { microsPerCredit: micros, currency: m[3]!.toUpperCase() };
}

/** Credits (micro-credits) in the currency, rounded half up to cents: "2.50 USD". */
export function inCurrency(creditMicros: bigint, price: CreditPrice): string {
  const negative = creditMicros < 0n;
  const abs = negative ? -creditMicros : creditMicros;
  // micro-credits × micro-currency per credit / 1e6 = micro-currency; then to cents, half up
  const cents = (abs * price.microsPerCredit + 5_000_000_000n) / 10_000_000_000n;
  const text = `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
  return `${negative && cents > 0n ? "-" : ""}${text} ${price.currency}`;
}

/**
 * How many whole days the balance lasts at the average daily spend of the days given (the last 30): null when nothing
 * was spent in them (no rate to project), 0 when the balance is spent.
 */
export function projectedDaysLeft(balanceMicros: bigint, dailySpendMicros: readonly bigint[]): number | null {
  if (balanceMicros <= 0n) return 0;
  const spent = dailySpendMicros.reduce((s, d) => s + (d > 0n ? d : 0n), 0n);
  if (spent === 0n || dailySpendMicros.length === 0) return null;
  return Number((balanceMicros * BigInt(dailySpendMicros.length)) / spent);
}

interface GettingStartedStep {
  id: "key" | "copy" | "search";
  label: string;
  done: boolean;
}

/** The steps of a first search; the panel shows until every one is done. */
export function gettingStarted(state: { keys: number; searches: number }): GettingStartedStep[] {
  return [
    { id: "key", label: "Create an API key", done: state.keys > 0 },
    { id: "copy", label: "Copy a first search (curl, Python or your MCP client)", done: state.searches > 0 },
    { id: "search", label: "Make a first search", done: state.searches > 0 },
  ];
}

/**
 * A first search in each client, for a key in the LITSEARCH_API_KEY environment variable; with `key` (only on the page
 * that has just created it, the one time the member sees it), that key written in where each client reads it.
 */
export function firstSearchSnippets(
  baseUrl: string,
  collection: string,
  key?: string,
): { label: string; text: string }[] {
  const snippets = envKeySnippets(baseUrl, collection);
  return key === undefined ? snippets : snippets.map((s) => ({ ...s, text: withKey(s.text, key) }));
}

/**
 * The snippets' references to the environment variable (the shell's, Cursor's) as `key`; Claude Desktop's config keeps
 * mcp-remote reading the variable and sets it, in the config's `env`, to `key`.
 */
function withKey(text: string, key: string): string {
  return text
    .replaceAll("${env:LITSEARCH_API_KEY}", key)
    .replaceAll("$LITSEARCH_API_KEY", key)
    .replaceAll('"sk_live_..."', JSON.stringify(key));
}

function envKeySnippets(baseUrl: string, collection: string): { label: string; text: string }[] {
  const mcp = `${baseUrl}/mcp`;
  const body = JSON.stringify({ collection, query: "vitamin D supplementation and bone fractures", limit: 3 });
  return [
    {
      label: "curl",
      text:
        `curl -s ${baseUrl}/api/v1/search/query -H "Authorization: Bearer $LITSEARCH_API_KEY" ` +
        `-H "Content-Type: application/json" -d '${body}'`,
    },
    {
      label: "Python SDK",
      text: [
        "pip install redpine-sdk==0.1.9",
        `REDPINE_BASE_URL=${baseUrl} REDPINE_API_KEY=$LITSEARCH_API_KEY python3 -c '`,
        "from redpine import Redpine",
        `print(Redpine().search("vitamin D supplementation and bone fractures", collection="${collection}", limit=3))'`,
      ].join("\n"),
    },
    {
      label: "Claude Code",
      text: `claude mcp add --transport http litsearch ${mcp} --header "Authorization: Bearer $LITSEARCH_API_KEY"`,
    },
    {
      label: "Cursor (.cursor/mcp.json)",
      text: JSON.stringify(
        {
          mcpServers: {
            litsearch: { url: mcp, headers: { Authorization: "Bearer ${env:LITSEARCH_API_KEY}" } },
          },
        },
        null,
        2,
      ),
    },
    {
      label: "Claude Desktop (claude_desktop_config.json)",
      text: JSON.stringify(
        {
          mcpServers: {
            litsearch: {
              command: "npx",
              args: [
                "-y",
                "mcp-remote@0.15.1",
                mcp,
                "--header",
                "Authorization: Bearer ${LITSEARCH_API_KEY}",
                "--transport",
                "http-only",
              ],
              env: { LITSEARCH_API_KEY: "sk_live_..." },
            },
          },
        },
        null,
        2,
      ),
    },
  ];
}
