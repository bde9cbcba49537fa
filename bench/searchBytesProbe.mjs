// bench:search-bytes: loaded into a service's main thread (node --import) to count what it allocates and posts to
// worker threads between two SIGUSR2 signals. Plain JavaScript, so that any tree's service loads it. The first signal
// starts V8's sampling heap profiler, keeping the samples of objects the garbage collector has since freed (so its sum
// is every byte allocated, sampled), and zeroes the counts; the second stops it and writes to SEARCH_BYTES_OUT the
// bytes allocated, by function, and the messages posted to workers (bytes copied by structured clone, bytes
// transferred). Each step writes `${SEARCH_BYTES_OUT}.<step>` when done.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import { isMainThread, Worker } from "node:worker_threads";

const out = process.env.SEARCH_BYTES_OUT;
const SAMPLING_INTERVAL = 1024;

if (isMainThread && out) {
  // the bench signals this process, not the supervisor that started it
  writeFileSync(`${out}.pid`, String(process.pid));
  const posted = { messages: 0, clonedBytes: 0, transferredBytes: 0 };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function postMessage(value, transfer) {
    const list = Array.isArray(transfer) ? transfer : (transfer?.transfer ?? []);
    const moved = list.reduce((sum, item) => sum + (item?.byteLength ?? 0), 0);
    let serialized = 0;
    try {
      serialized = v8.serialize(value).byteLength;
    } catch {
      // a message port or other host object: counted as a message only
    }
    posted.messages += 1;
    posted.clonedBytes += Math.max(0, serialized - moved);
    posted.transferredBytes += moved;
    return post.call(this, value, transfer);
  };

  // garbage collections by kind (perf_hooks' gc entry detail: 1 minor, 2 major, 4 incremental marking, 8 weak
  // callbacks)
  const collections = {};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = { 1: "minor", 2: "major", 4: "incremental", 8: "weakCallbacks" }[entry.detail?.kind] ?? "other";
      if (sampling) collections[kind] = (collections[kind] ?? 0) + 1;
    }
  }).observe({ entryTypes: ["gc"] });

  const session = new Session();
  session.connect();
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  let sampling = false;

  const byFunction = (head) => {
    const totals = new Map();
    const walk = (node) => {
      const frame = node.callFrame;
      const url = frame.url
        .replace(/^.*\/node_modules\//, "node_modules/")
        .replace(/^file:\/\/.*?\/(src|bench)\//, "$1/");
      const key = `${frame.functionName || "(anonymous)"} ${url}:${frame.lineNumber + 1}`;
      if (node.selfSize > 0) totals.set(key, (totals.get(key) ?? 0) + node.selfSize);
      for (const child of node.children) walk(child);
    };
    walk(head);
    return [...totals].sort((a, b) => b[1] - a[1]);
  };

  // SEARCH_BYTES_LIVE=1: sampled from the start without the freed objects, so that the end's profile says where what
  // stays reachable was allocated (the live heap by function, written to `${SEARCH_BYTES_OUT}.live.json`)
  const live = process.env.SEARCH_BYTES_LIVE === "1";
  if (live) call("HeapProfiler.enable").then(() => call("HeapProfiler.startSampling", { samplingInterval: 4096 }));

  process.on("SIGUSR2", () => {
    if (live) {
      if (!sampling) {
        sampling = true;
        writeFileSync(`${out}.started`, "");
        return;
      }
      call("HeapProfiler.collectGarbage")
        .then(() => call("HeapProfiler.stopSampling"))
        .then(({ profile }) => {
          const functions = byFunction(profile.head);
          const liveBytes = functions.reduce((sum, [, bytes]) => sum + bytes, 0);
          writeFileSync(`${out}.live.json`, JSON.stringify({ liveBytes, functions: functions.slice(0, 80) }));
          writeFileSync(
            out,
            JSON.stringify({ allocatedBytes: 0, liveHeapBytes: liveBytes, collections: {}, posted, functions: [] }),
          );
          writeFileSync(`${out}.stopped`, "");
        });
      return;
    }
    if (!sampling) {
      sampling = true;
      Object.assign(posted, { messages: 0, clonedBytes: 0, transferredBytes: 0 });
      for (const kind of Object.keys(collections)) delete collections[kind];
      call("HeapProfiler.enable")
        .then(() =>
          call("HeapProfiler.startSampling", {
            samplingInterval: SAMPLING_INTERVAL,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          }),
        )
        .then(() => writeFileSync(`${out}.started`, ""));
      return;
    }
    sampling = false;
    const counts = { ...posted };
    const gcs = { ...collections };
    call("HeapProfiler.stopSampling").then(async ({ profile }) => {
      const functions = byFunction(profile.head);
      const allocatedBytes = functions.reduce((sum, [, bytes]) => sum + bytes, 0);
      // what stays reachable: the heap a major collection marks
      await call("HeapProfiler.collectGarbage");
      const liveHeapBytes = v8.getHeapStatistics().used_heap_size;
      writeFileSync(
        out,
        JSON.stringify({
          allocatedBytes,
          liveHeapBytes,
          collections: gcs,
          posted: counts,
          functions: functions.slice(0, 60),
        }),
      );
      writeFileSync(`${out}.stopped`, "");
    });
  });
}
