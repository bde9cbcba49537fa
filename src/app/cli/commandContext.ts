// What every operator command is given: the parsed options and arguments, the operations it runs, and the helpers
// that read its options.
import { parseArgs } from "node:util";
import type { loadConfig, OperatorTarget } from "../config.js";
import type { BillingMode } from "../../domain/events.js";
import type { CliOperations, LocalStore, Remote } from "./operations.js";

/** Every option of every command (parseArgs is strict: an unknown option is refused). */
const CLI_OPTIONS = {
  name: { type: "string" },
  "billing-mode": { type: "string" },
  "per-minute": { type: "string" },
  daily: { type: "string" },
  monthly: { type: "string" },
  "preview-per-hour": { type: "string" },
  "hide-balance": { type: "boolean" },
  reason: { type: "string" },
  reference: { type: "string" },
  mode: { type: "string" },
  collections: { type: "string" },
  files: { type: "string" },
  "spending-cap": { type: "string" },
  csv: { type: "boolean" },
  "openalex-sources": { type: "string" },
  force: { type: "boolean" },
  promote: { type: "boolean" },
  "trial-queries": { type: "string" },
  "billing-off": { type: "boolean" },
  billing: { type: "string" },
  balance: { type: "string" },
  "query-id": { type: "string" },
  role: { type: "string" },
  clear: { type: "boolean" },
  from: { type: "string" },
  to: { type: "string" },
  limit: { type: "string" },
  offset: { type: "string" },
  url: { type: "string" },
  "admin-token": { type: "string" },
  "display-name": { type: "string" },
  description: { type: "string" },
  price: { type: "string" },
  members: { type: "string" },
  events: { type: "string" },
  init: { type: "boolean" },
  json: { type: "boolean" },
  wait: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export function parseCommandLine(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
}

type CliValues = ReturnType<typeof parseCommandLine>["values"];

export interface CommandContext {
  values: CliValues;
  /** the second word, or the first argument of a one-word command */
  sub: string | undefined;
  /** the positional arguments after the command's words */
  rest: string[];
  /** the folder the operator ran the command from: the files it names are found there (localPaths.ts) */
  callerDir: string;
  ops: CliOperations;
  target: OperatorTarget;
  /** the server the command is sent to; undefined when it runs on the local store */
  remote: Remote | undefined;
  /** the local configuration; undefined when a server named by --url runs the command */
  config: ReturnType<typeof loadConfig> | undefined;
  /** the local store when the command runs on it */
  db: LocalStore | undefined;
  print(v: unknown): void;
  /** a list command's answer: a table by default, the operator API's JSON with --json */
  printTable(command: string, v: unknown): void;
  limits(): Record<string, number | undefined>;
  billingMode(): BillingMode | undefined;
}

/** Operator commands by name (one word, or two): each runs once its positional arguments are checked. */
export type Commands = Record<string, () => Promise<number>>;

export const onOff = (v: string | undefined, on: string, off: string, name: string): boolean | undefined => {
  if (v === undefined) return undefined;
  if (v === on) return true;
  if (v === off) return false;
  throw new Error(`--${name} must be ${on} or ${off}`);
};

export const intOpt = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
};

export const limitsOf = (values: CliValues) =>
  Object.fromEntries(
    Object.entries({
      perMinute: intOpt(values["per-minute"], "per-minute"),
      daily: intOpt(values.daily, "daily"),
      monthly: intOpt(values.monthly, "monthly"),
      previewPerHour: intOpt(values["preview-per-hour"], "preview-per-hour"),
    }).filter(([, v]) => v !== undefined),
  );

export function billingModeOf(values: CliValues): BillingMode | undefined {
  const v = values["billing-mode"];
  if (v === undefined) return undefined;
  if (v !== "live" && v !== "trial" && v !== "exempt") throw new Error("--billing-mode must be live, trial or exempt");
  return v;
}
