// Client text the service will not take: NUL (PostgreSQL cannot store it) and lone UTF-16 surrogates (not Unicode).
// The body parser checks every string of a JSON body; `requestTargetText` checks the path and the query string.
import type { Context, Next } from "koa";
import { ApiError } from "../wire/errors.js";

/** What is wrong with one piece of client text, or undefined when PostgreSQL can store it as sent. */
function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "contains the NUL character (U+0000), which no stored text may hold";
  // with the u flag a surrogate pair is one code point, so \p{Cs} matches only a surrogate without its partner
  if (/\p{Cs}/u.test(text)) return "contains a lone UTF-16 surrogate (half of a pair), which is not Unicode text";
  return undefined;
}

interface TextDefect {
  /** dotted path of the offending value or key inside the document ("" for the document itself) */
  path: string;
  problem: string;
}

/**
 * The first string value or object key in `value` that `textProblem` refuses. Walks with its own stack rather than
 * recursing, so it is safe on any depth; the body parser bounds the depth before this runs anyway.
 */
export function findTextDefect(value: unknown): TextDefect | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: "" }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === "string") {
      const problem = textProblem(current);
      if (problem) return { path, problem };
    } else if (Array.isArray(current)) {
      current.forEach((entry, i) => pending.push({ value: entry, path: path ? `${path}.${i}` : String(i) }));
    } else if (current !== null && typeof current === "object") {
      for (const [key, entry] of Object.entries(current)) {
        const keyProblem = textProblem(key);
        if (keyProblem) return { path, problem: `has a field name that ${keyProblem}` };
        pending.push({ value: entry, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return undefined;
}

/**
 * Refuses a request whose path cannot name anything (not percent-encoded UTF-8, or holding NUL): 404 NOT_FOUND,
 * before authentication and routing, so no path parameter the routes read can carry such text to the store; and a
 * query string with NUL: 422 VALIDATION_ERROR.
 */
export function requestTargetText() {
  return async (ctx: Context, next: Next) => {
    let path: string;
    try {
      path = decodeURIComponent(ctx.path);
    } catch {
      throw new ApiError(404, "NOT_FOUND", "no resource is named by a path that is not percent-encoded UTF-8");
    }
    const pathProblem = textProblem(path);
    if (pathProblem) throw new ApiError(404, "NOT_FOUND", `no resource is named by a path that ${pathProblem}`);
    const queryDefect = findTextDefect(ctx.query);
    if (queryDefect)
      throw new ApiError(
        422,
        "VALIDATION_ERROR",
        `query parameter ${queryDefect.path ? `"${queryDefect.path}" ` : ""}${queryDefect.problem}`,
      );
    return next();
  };
}
