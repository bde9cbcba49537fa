// The service for the HTTP benchmarks: started in this process (worker included) on a bench data directory, listening
// on a free local port, with a live key of a fresh organization whose limits never throttle the run.
import type { AddressInfo } from "node:net";
import pino from "pino";
import type { Config } from "../src/app/config.js";
import { startRuntime, type Runtime } from "../src/app/composition.js";
import { listen } from "../src/http/server.js";
import type { JudgeModel } from "../src/reasoner/builtin/judge.js";

export interface BenchService {
  runtime: Runtime;
  /** a POST with the live key */
  post(path: string, body: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function serveWithLiveKey(
  config: Config,
  options: {
    organization: string;
    credits: string;
    judgeModel?: JudgeModel;
    beforeKey?: (runtime: Runtime) => Promise<void>;
  },
): Promise<BenchService> {
  const runtime = await startRuntime(config, {
    worker: true,
    log: pino({ level: "warn" }),
    judgeModel: options.judgeModel,
  });
  const server = await listen(runtime.app, 0, "127.0.0.1");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: unknown, auth: string) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${auth}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const close = async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await runtime.close();
  };
  try {
    await options.beforeKey?.(runtime);
    const org = await post(
      "/admin/v1/organizations",
      { name: options.organization, limits: { perMinute: 1_000_000, daily: 100_000_000, monthly: 1_000_000_000 } },
      config.adminToken,
    );
    await post(`/admin/v1/organizations/${org.body.id}/credits`, { amount: options.credits }, config.adminToken);
    const key = (await post(`/admin/v1/organizations/${org.body.id}/keys`, { mode: "live" }, config.adminToken)).body
      .key as string;
    return { runtime, post: (path, body) => post(path, body, key), close };
  } catch (err) {
    await close();
    throw err;
  }
}
