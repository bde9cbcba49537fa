// The key a bench calls the use cases with: a live key of an organization whose per-minute, daily and monthly budgets
// no bench reaches, reaching every collection.
import type { AuthContext } from "../src/usecases/auth/context.js";

export const UNLIMITED_BENCH_AUTH = {
  key: { id: "key_bench", collections: null },
  org: {
    id: "org_bench",
    limits: { perMinute: 1_000_000_000, daily: 1_000_000_000, monthly: 1_000_000_000 },
    priceOverrides: new Map(),
  },
  billingMode: "live",
} as unknown as AuthContext;
