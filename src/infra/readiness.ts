// Polls a starting server until it answers, failing fast if its process dies and with its log tail if it never gets
// ready.
import type { SupervisedProcess } from "./supervisedProcess.js";

interface WaitForReadyOptions<T> {
  /** What is being waited for, e.g. "PostgreSQL on 127.0.0.1:5433". */
  what: string;
  process: SupervisedProcess;
  /**
   * Resolves to a value when ready; throws or resolves undefined when not yet. Should stop work when the signal aborts.
   */
  probe: (signal: AbortSignal) => Promise<T | undefined>;
  timeoutMs: number;
  intervalMs?: number;
  /**
   * One probe may take this long before it counts as "not yet" (a port held by something else may accept and never
   * answer).
   */
  probeTimeoutMs?: number;
}

export async function waitForReady<T>(options: WaitForReadyOptions<T>): Promise<T> {
  const { what, process: child, probe, timeoutMs } = options;
  const intervalMs = options.intervalMs ?? 200;
  const probeTimeoutMs = options.probeTimeoutMs ?? 5_000;
  const deadline = Date.now() + timeoutMs;
  let lastError = "no answer yet";
  for (;;) {
    if (child.hasExited()) {
      const exit = await child.exit;
      throw new Error(
        `${what}: the process exited before it was ready (status ${exit.serverStatus ?? "unknown"}). Log ` +
          `${child.logFile}:\n${child.logTail()}`,
      );
    }
    try {
      const value = await probeWithTimeout(probe, probeTimeoutMs);
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `${what}: not ready within ${Math.round(timeoutMs / 1000)}s (last probe: ${lastError}). Log ` +
          `${child.logFile}:\n${child.logTail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

async function probeWithTimeout<T>(
  probe: (signal: AbortSignal) => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T | undefined> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`probe got no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([probe(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
