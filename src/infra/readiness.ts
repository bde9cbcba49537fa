// Polls a starting server until it answers, failing fast if its process dies and with its log tail if it never gets ready.
import type { SupervisedProcess } from './supervisedProcess.js';

export interface WaitForReadyOptions<T> {
  /** What is being waited for, e.g. "PostgreSQL on 127.0.0.1:5433". */
  what: string;
  process: SupervisedProcess;
  /** Resolves to a value when ready; throws or resolves undefined when not yet. */
  probe: () => Promise<T | undefined>;
  timeoutMs: number;
  intervalMs?: number;
}

export async function waitForReady<T>(options: WaitForReadyOptions<T>): Promise<T> {
  const { what, process: child, probe, timeoutMs } = options;
  const intervalMs = options.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  for (;;) {
    if (child.hasExited()) {
      const exit = await child.exit;
      throw new Error(
        `${what}: the process exited before it was ready (code ${exit.code ?? '-'}, signal ${exit.signal ?? '-'}). Log ${child.logFile}:\n${child.logTail()}`,
      );
    }
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) {
      throw new Error(`${what}: not ready within ${Math.round(timeoutMs / 1000)}s (last probe: ${lastError}). Log ${child.logFile}:\n${child.logTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
