// Reads a tool's arguments with its zod schema: input a tool cannot use is the tool's domain error (422 TOOL_ERROR),
// whatever its shape, because the gateway knows no tool's schema (an upstream tool's is JSON Schema).
import type { z } from "zod";
import { ToolError } from "./toolRegistry.js";

export function toolInput<S extends z.ZodTypeAny>(tool: string, schema: S, payload: unknown): z.infer<S> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message));
  throw new ToolError(`${tool}: ${issues.join("; ")}`);
}
