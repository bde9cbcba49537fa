// What the API-key routes of works and authors read from a request: the key's context, and an id that may hold slashes.
import type { Context } from "koa";
import { ApiError } from "../../wire/errors.js";
import type { RequestState } from "../requestContext.js";
import type { AuthContext } from "../../usecases/auth/context.js";

/** The authenticated key's context (the group's authentication ran first: its absence is a 401). */
export const keyAuth = (ctx: Context): AuthContext => {
  const a = (ctx.state as RequestState).auth;
  if (!a) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
  return a;
};

/**
 * The id as sent (a DOI or a URL pasted whole): the router's `*id` wildcard gives it decoded, its segments joined by
 * "/".
 */
export const restOfPathId = (ctx: { params: Record<string, unknown> }): string => {
  const id = ctx.params.id;
  return Array.isArray(id) ? id.join("/") : typeof id === "string" ? id : "";
};
