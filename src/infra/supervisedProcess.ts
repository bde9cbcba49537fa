// Runs a server as a child in its own process group, logs to a file, and makes sure the whole group ends on stop(), on
// our exit, and even if we are killed.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { Socket } from "node:net";

type StopSignal = "SIGTERM" | "SIGINT";

interface SupervisedProcessOptions {
  /** Short name used in messages, e.g. "postgres". */
  name: string;
  command: string;
  args: readonly string[];
  /** stdout and stderr of the server are appended here. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Signal that asks the server to shut down cleanly (PostgreSQL: SIGINT is its fast shutdown). */
  stopSignal?: StopSignal;
  /** How long a clean shutdown may take before the process group is killed. */
  stopGraceMs?: number;
  /** Run as another account (only possible when we are root). */
  runAs?: { uid: number; gid: number };
}

interface ProcessExit {
  /**
   * The server's own exit status as the supervisor logged it (signals as 128 + n); undefined if it never got to log it.
   */
  serverStatus: number | undefined;
}

export interface SupervisedProcess {
  readonly name: string;
  /** Pid of the supervising shell, which leads the process group. */
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when the supervising shell has exited (the server and its group are gone by then). */
  readonly exit: Promise<ProcessExit>;
  hasExited(): boolean;
  /** Last lines of the log, for error messages. */
  logTail(lines?: number): string;
  /** Clean shutdown, then SIGKILL to the whole group after the grace period. Idempotent. */
  stop(): Promise<void>;
}

// The supervising shell. It starts the server in the background, forwards the stop signal, and
// treats end of file on its stdin (a pipe whose write end only this Node process holds) as "the
// parent is gone", so a parent killed with SIGKILL still takes its servers down. After the server
// exits it kills its own process group, so nothing the server forked outlives it.
const SUPERVISOR_SCRIPT = String.raw`
sig="$1"; grace="$2"; shift 2
exec 3<&0
"$@" 0</dev/null 3<&- &
child=$!
stopping=0
request_stop() {
  [ "$stopping" = 1 ] && return
  stopping=1
  kill -s "$sig" "$child" 2>/dev/null
  ( sleep "$grace"
    echo "[supervisor] still running $grace s after $sig: killing the process group" >&2
    kill -s KILL -- "-$$" ) 0</dev/null 3<&- &
}
trap request_stop TERM INT HUP
( while read -r _; do :; done; kill -s TERM "$$" ) 0<&3 &
exec 3<&-
while :; do
  wait "$child"; status=$?
  kill -0 "$child" 2>/dev/null || break
done
echo "[supervisor] $1 exited with status $status" >&2
if [ "$(cut -d' ' -f5 /proc/$$/stat)" = "$$" ]; then kill -s KILL -- "-$$"; fi
exit "$status"
`;

const live = new Set<SupervisedProcess & { signalSync(): void }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: ask each supervisor to stop; it finishes on its own.
  process.once("exit", () => {
    for (const child of live) child.signalSync();
  });
}

export function startSupervisedProcess(options: SupervisedProcessOptions): SupervisedProcess {
  const stopSignal = options.stopSignal ?? "SIGTERM";
  const graceMs = options.stopGraceMs ?? 30_000;
  const logFd = openSync(options.logFile, "a");
  writeSync(logFd, `[supervisor] ${new Date().toISOString()} starting ${options.command} ${options.args.join(" ")}\n`);
  let child;
  try {
    child = spawn(
      "/bin/bash",
      [
        "-c",
        SUPERVISOR_SCRIPT,
        `litsearch-${options.name}`,
        stopSignal.replace(/^SIG/, ""),
        String(Math.ceil(graceMs / 1000)),
        options.command,
        ...options.args,
      ],
      {
        detached: true, // own session and process group, so the group can be killed as one
        stdio: ["pipe", logFd, logFd],
        env: options.env ?? process.env,
        cwd: options.cwd,
        uid: options.runAs?.uid,
        gid: options.runAs?.gid,
      },
    );
  } finally {
    closeSync(logFd);
  }
  const pid = child.pid;
  if (pid === undefined) {
    throw new Error(`${options.name}: could not spawn ${options.command} (see ${options.logFile})`);
  }
  // Neither the child nor its stdin pipe may keep our event loop alive; the pipe only signals our death.
  child.unref();
  if (child.stdin instanceof Socket) child.stdin.unref();
  child.stdin?.on("error", () => undefined);

  let exited: ProcessExit | undefined;
  const exit = new Promise<ProcessExit>((resolve) => {
    child.once("exit", () => {
      // The supervisor ends by killing its own group, so its exit code says nothing; the server's status is in the log.
      const logged = /\[supervisor\] .* exited with status (\d+)\s*$/.exec(tailOf(options.logFile, 5));
      exited = { serverStatus: logged ? Number(logged[1]) : undefined };
      live.delete(supervised);
      resolve(exited);
    });
  });

  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };

  let stopping: Promise<void> | undefined;
  const supervised = {
    name: options.name,
    pid,
    logFile: options.logFile,
    exit,
    hasExited: () => exited !== undefined,
    logTail: (lines = 30) => tailOf(options.logFile, lines),
    signalSync: () => {
      try {
        process.kill(pid, stopSignal);
      } catch {
        // already gone
      }
    },
    stop: () => {
      stopping ??= (async () => {
        if (exited) {
          killGroup("SIGKILL");
          return;
        }
        supervised.signalSync();
        // The supervisor kills the group itself after the grace period; this is the fallback if it cannot.
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), graceMs + 5_000);
        });
        const outcome = await Promise.race([exit, timedOut]);
        clearTimeout(timer);
        killGroup("SIGKILL");
        if (outcome === "timeout") await exit;
      })();
      return stopping;
    },
  };
  live.add(supervised);
  installExitHook();
  return supervised;
}

function tailOf(file: string, lines: number): string {
  try {
    const text = readFileSync(file, "utf8");
    return text
      .split("\n")
      .slice(-lines - 1)
      .join("\n")
      .trimEnd();
  } catch {
    return `(no log at ${file})`;
  }
}
