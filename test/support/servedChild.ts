// A real server that tests and benches run as a child on a free port (llama-server, Infinity): started, waited for
// until a path answers 200 (the tail of its output in the error when it exits first or never answers), and stopped
// with SIGTERM.
import { spawn } from "node:child_process";
import { findFreePort } from "../../src/infra/freePort.js";

export interface ServedChild {
  url: string;
  /** the server's own process id (the bench reads its CPU time from /proc) */
  pid: number;
  /** what the server printed until it answered (the first 64,000 characters) */
  startupLog: string;
  close(): Promise<void>;
}

export interface ServedChildOptions {
  /** how messages name it */
  name: string;
  command: string;
  /** its arguments, given the port it listens on */
  args: (port: number) => string[];
  env: NodeJS.ProcessEnv;
  /** the path that answers 200 once it serves */
  readyPath: string;
  readyWithinMs: number;
  pollMs: number;
  /** called when the process has exited */
  onExit?: () => void;
}

export async function startServedChild(options: ServedChildOptions): Promise<ServedChild> {
  const port = await findFreePort();
  const child = spawn(options.command, options.args(port), { stdio: ["ignore", "pipe", "pipe"], env: options.env });
  if (options.onExit) child.once("exit", options.onExit);
  let tail = "";
  let startupLog = "";
  const keep = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    if (startupLog.length < 64_000) startupLog += text;
    tail = (tail + text).slice(-4000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + options.readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited (${child.exitCode}) before serving:\n${tail}`);
    const answer = await fetch(`${url}${options.readyPath}`).catch(() => undefined);
    if (answer?.status === 200) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${options.name} did not serve within ${options.readyWithinMs / 1000} s:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs));
  }
  return {
    url,
    pid: child.pid!,
    startupLog,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
