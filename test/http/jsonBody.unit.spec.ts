// The JSON body parser on its own: nesting bounded before parsing, text PostgreSQL cannot store refused with its path.
import { describe, expect, it } from "vitest";
import { nestsDeeperThan, parseJsonBody } from "../../src/http/jsonBody.js";
import { findTextDefect } from "../../src/http/requestText.js";
import { ApiError } from "../../src/wire/errors.js";

function refusal(raw: string): ApiError {
  try {
    parseJsonBody(raw);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error(`accepted: ${raw.slice(0, 80)}`);
}

/** the deepest nesting a body may have */
const MAX_JSON_DEPTH = 100;

const nested = (depth: number, open: string, close: string, inner = "1") =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

describe("nesting depth", () => {
  it("accepts exactly the maximum and refuses one more, for arrays and objects alike", () => {
    expect(parseJsonBody(nested(MAX_JSON_DEPTH, "[", "]"))).toBeDefined();
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH, "[", "]"), MAX_JSON_DEPTH)).toBe(false);
    for (const raw of [nested(MAX_JSON_DEPTH + 1, "[", "]"), nested(MAX_JSON_DEPTH + 1, '{"a":', "}")]) {
      const err = refusal(raw);
      expect([err.status, err.code]).toEqual([422, "VALIDATION_ERROR"]);
      expect(err.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    }
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ q: `\\"${"[".repeat(5000)}`, r: "{".repeat(5000) });
    expect(nestsDeeperThan(text, 2)).toBe(false);
    expect(parseJsonBody(text)).toEqual(JSON.parse(text));
  });

  it("refuses 5,000 and 100,000 levels without exhausting the stack", () => {
    expect(refusal(nested(5000, '{"and":[', "]}", '{"field":"journal","eq":"A"}')).message).toContain("deeper than");
    expect(refusal(nested(100_000, "[", "]")).message).toContain("deeper than");
  });

  it("leaves room for a filter at the filter language cap of 32 levels and a little past it", () => {
    // 40 and-levels inside {"filters": ...}: the filter parser, not the body parser, names this one (as nesting_depth)
    expect(() =>
      parseJsonBody(
        `{"collection":"x","query":"q","filters":${nested(40, '{"and":[', "]}", '{"field":"journal","eq":"A"}')}}`,
      ),
    ).not.toThrow();
  });
});

describe("text the store cannot hold", () => {
  it("names NUL and lone surrogates and accepts paired surrogates and an escaped backslash-u0000", () => {
    const textProblem = (text: string) => findTextDefect(text)?.problem;
    expect(textProblem("a\u0000b")).toMatch(/NUL/);
    expect(textProblem("\ud800")).toMatch(/surrogate/);
    expect(textProblem("x\udc00")).toMatch(/surrogate/);
    expect(textProblem("\udc00\ud800")).toMatch(/surrogate/);
    expect(textProblem("😀 \\u0000 ü")).toBeUndefined();
  });

  it("finds the defect anywhere in the body, in values and in field names, and names where", () => {
    expect(findTextDefect({ a: [1, { b: "fine" }, { c: ["x", "y\u0000"] }] })).toEqual({
      path: "a.2.c.1",
      problem: expect.stringMatching(/NUL/),
    });
    expect(findTextDefect({ filters: { "jour\ud800nal": "A" } })).toEqual({
      path: "filters",
      problem: expect.stringMatching(/field name.*surrogate/),
    });
    expect(findTextDefect({ a: ["ok", { b: 1, c: null, d: true }] })).toBeUndefined();
    const err = refusal('{"queryId":"a\\u0000"}');
    expect([err.status, err.code]).toEqual([422, "VALIDATION_ERROR"]);
    expect(err.message).toBe(
      'request body field "queryId" contains the NUL character (U+0000), which no stored text may hold',
    );
    expect(refusal('{"name":"\\ud800"}').message).toMatch(/"name" contains a lone UTF-16 surrogate/);
    expect(refusal('"\\udfff"').message).toMatch(/^request body contains a lone/);
  });

  it("still reports malformed JSON as such", () => {
    expect(refusal('{"a": ').message).toMatch(/not valid JSON/);
    expect(parseJsonBody("  ")).toBeUndefined();
  });
});
