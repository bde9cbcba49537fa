// --cpu-split: a service's CPU per request split by thread, from the kernel's accounting of each thread
// (/proc/<pid>/task/<tid>/stat, user + system time). Node 20 names none of its threads (every comm reads "node"), so
// each thread is told by its stack once, before the timed points: gdb's backtrace of every thread, read for the
// function that started it (libuv's threadpool worker, V8's platform workers, a worker_threads Worker, onnxruntime's
// pool, the inspector). Unlike a CPU profile, time a thread waited for a core on a loaded machine is not counted.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** What a thread is, by the function that started it. */
export type ThreadKind =
  | "main"
  | "libuv threadpool"
  | "V8 platform (GC, compiler)"
  | "worker threads (PGlite, deflate)"
  | "onnxruntime"
  | "inspector"
  | "other"
  | "started in the window";

/** Clock ticks per second of /proc's CPU times (asked on first use: importing this module starts no process). */
let clockTicks: number | undefined;
const ticksPerSecond = (): number =>
  (clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100);

/** User + system CPU milliseconds of every live thread of these processes, keyed `pid/tid`. */
export function threadCpuMs(pids: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // the process ended
    }
    for (const tid of tids) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      } catch {
        continue; // the thread ended between the listing and the read
      }
      // after the command name in parentheses: state first, then utime and stime are the 12th and 13th fields
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(`${pid}/${tid}`, ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond());
    }
  }
  return out;
}

/** Each thread's kind from one backtrace of every thread (gdb pauses the process for about a second). */
export function threadKinds(pids: number[]): Map<string, ThreadKind> {
  const kinds = new Map<string, ThreadKind>();
  for (const pid of pids) {
    let trace = "";
    try {
      trace = execFileSync("gdb", ["-p", String(pid), "-batch", "-ex", "thread apply all bt 60"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (err) {
      // no gdb, or no permission to attach: the main thread is still told from the others
      console.error(`[speed] --cpu-split: no backtrace of ${pid} (${(err as Error).message.split("\n")[0]})`);
    }
    for (const [tid, frames] of threadsOf(trace)) kinds.set(`${pid}/${tid}`, kindOf(pid, tid, frames));
    for (const key of threadCpuMs([pid]).keys()) {
      const tid = Number(key.split("/")[1]);
      if (!kinds.has(key)) kinds.set(key, tid === pid ? "main" : "other");
    }
  }
  return kinds;
}

/** gdb's "Thread N (... (LWP tid) ...)" headers, each with the frames below it. */
function threadsOf(trace: string): Map<number, string> {
  const threads = new Map<number, string>();
  let tid: number | undefined;
  for (const line of trace.split("\n")) {
    const header = /^Thread \d+ .*\(LWP (\d+)\)/.exec(line);
    if (header) tid = Number(header[1]);
    else if (tid !== undefined && line.startsWith("#")) threads.set(tid, `${threads.get(tid) ?? ""}${line}\n`);
  }
  return threads;
}

/** A thread's kind by its stack (pure: the unit test feeds it gdb's lines). */
export function kindOf(pid: number, tid: number, frames: string): ThreadKind {
  if (tid === pid) return "main";
  if (/onnxruntime|Mlas|libonnx/i.test(frames)) return "onnxruntime";
  if (/deps\/uv\/src\/threadpool\.c/.test(frames)) return "libuv threadpool";
  if (/PlatformWorkerThread|DelayedTaskScheduler/.test(frames)) return "V8 platform (GC, compiler)";
  if (/node::worker::Worker::/.test(frames)) return "worker threads (PGlite, deflate)";
  if (/inspector/.test(frames)) return "inspector";
  return "other";
}

/**
 * CPU ms per request by thread kind between two readings (threads that ended in between are lost with their time;
 * threads started in between count from zero).
 */
export function splitPerRequest(
  before: Map<string, number>,
  after: Map<string, number>,
  kinds: Map<string, ThreadKind>,
  requests: number,
): Partial<Record<ThreadKind, number>> {
  const sums: Partial<Record<ThreadKind, number>> = {};
  for (const [key, ms] of after) {
    const kind = kinds.get(key) ?? "started in the window";
    sums[kind] = (sums[kind] ?? 0) + ms - (before.get(key) ?? 0);
  }
  const out: Partial<Record<ThreadKind, number>> = {};
  for (const [kind, ms] of Object.entries(sums) as Array<[ThreadKind, number]>)
    if (ms > 0 && requests > 0) out[kind] = Math.round((ms / requests) * 100) / 100;
  return out;
}

/** "main 5.1, libuv threadpool 0.3, ...": the split in the readable line, largest first. */
export function splitLine(split: Partial<Record<ThreadKind, number>>): string {
  return (Object.entries(split) as Array<[ThreadKind, number]>)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${ms}`)
    .join(", ");
}
