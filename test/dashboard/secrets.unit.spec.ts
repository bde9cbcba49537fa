// Password hashing and the dashboard's tokens: scrypt with a salt of its own per hash, verification in constant time
// that refuses tampered or malformed hashes, unguessable tokens stored only as hashes, and CSRF tokens bound to the
// session they belong to. Also the page helpers that keep request text from becoming markup.
import { describe, expect, it } from "vitest";
import { hashPassword, verifyDecoy, verifyPassword } from "../../src/usecases/auth/passwords.js";
import {
  csrfTokenOf,
  isWellFormedToken,
  newSecretToken,
  sameSecret,
  tokenHash,
} from "../../src/usecases/auth/sessionTokens.js";
import { html } from "../../src/http/dashboard/html.js";
import { stackedBarChart } from "../../src/http/dashboard/charts.js";
import { credits } from "../../src/http/dashboard/pages.js";

describe("passwords", () => {
  it("hashes with scrypt and a fresh salt; verifies the password and nothing else", async () => {
    const a = await hashPassword("correct horse battery staple");
    const b = await hashPassword("correct horse battery staple");
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery staple", a)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
    const [scheme, n, r, p, salt, hash] = a.split("$");
    expect(
      await verifyPassword(
        "correct horse battery staple",
        [scheme, n, r, p, salt, `${hash!.slice(0, -2)}AA`].join("$"),
      ),
    ).toBe(false);
    for (const broken of ["", "plain", "scrypt$1$1$1$$", "bcrypt$10$x$y$z$w", `scrypt$${2 ** 24}$8$1$${salt}$${hash}`])
      expect(await verifyPassword("x", broken), broken).toBe(false);
    expect(await verifyDecoy("anything")).toBe(false);
  });
});

describe("tokens", () => {
  it("are 256 random bits, kept as SHA-256; CSRF tokens belong to one session and compare in constant time", () => {
    const t = newSecretToken();
    expect(isWellFormedToken(t)).toBe(true);
    expect(new Set(Array.from({ length: 100 }, newSecretToken)).size).toBe(100);
    expect(tokenHash(t)).toMatch(/^[0-9a-f]{64}$/);
    for (const bad of ["", "short", `${t}x`, t.replace(/./, "/"), " ".repeat(43)])
      expect(isWellFormedToken(bad)).toBe(false);
    const other = newSecretToken();
    expect(csrfTokenOf(t)).toBe(csrfTokenOf(t));
    expect(csrfTokenOf(t)).not.toBe(csrfTokenOf(other));
    expect(csrfTokenOf(t)).not.toContain(t);
    expect(sameSecret(csrfTokenOf(t), csrfTokenOf(t))).toBe(true);
    expect(sameSecret(csrfTokenOf(t), csrfTokenOf(other))).toBe(false);
    expect(sameSecret(csrfTokenOf(t), "")).toBe(false);
  });
});

describe("pages", () => {
  it("escape every interpolated value; only markup built here passes as is", () => {
    const name = `<script>alert("x")</script>' onmouseover='`;
    expect(html`<td title="${name}">${name}</td>`.text).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; ' +
        'onmouseover=&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;</td>',
    );
    expect(html`<p>${[html`<b>${"&"}</b>`, 1n, null, false, undefined]}</p>`.text).toBe("<p><b>&amp;</b>1</p>");
    expect(html`${"\"'<>&"}`.text).toBe("&quot;&#39;&lt;&gt;&amp;");
  });

  it("draw stacked bars per day with a title per bar, no inline style, and round axis tops", () => {
    // the y axis's top tick: a round number at or above the largest day's total
    const axisTop = (total: number) => {
      const values = new Map([["2031-01-01", total]]);
      const chart = stackedBarChart({
        id: "t",
        title: "T",
        days: ["2031-01-01"],
        series: [{ name: "s", values }],
        format: String,
      });
      return [...chart.text.matchAll(/text-anchor="end">([^<]*)<\/text>/g)].map((m) => Number(m[1])).at(-1);
    };
    expect([0, 0.3, 1, 7, 12, 250, 999].map(axisTop)).toEqual([1, 0.5, 1, 10, 20, 500, 1000]);
    const svg = stackedBarChart({
      id: "c",
      title: "Searches",
      days: ["2031-01-01", "2031-01-02"],
      series: [
        { name: "scifact", values: new Map([["2031-01-02", 3]]) },
        { name: "<b>x</b>", values: new Map([["2031-01-02", 1]]) },
      ],
      format: String,
    }).text;
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(2);
    expect(svg).toContain(
      'data-day="2031-01-02" data-series="scifact" data-value="3"><title>2031-01-02 scifact: 3</title>',
    );
    expect(svg).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(svg).not.toContain("style=");
    expect(svg).toContain('role="img" aria-labelledby="c-title"');
  });

  it("show credits in one format, six decimals as X-Query-Cost, every micro-credit the ledger keeps", () => {
    expect([25_000_000n, 24_998_412n, 500_000n, 0n, 1n, -1_250_000n].map(credits)).toEqual([
      "25.000000",
      "24.998412",
      "0.500000",
      "0.000000",
      "0.000001",
      "-1.250000",
    ]);
  });
});
