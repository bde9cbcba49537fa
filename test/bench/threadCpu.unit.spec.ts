import { describe, expect, it } from "vitest";
import { kindOf, splitLine, splitPerRequest, type ThreadKind } from "../../bench/threadCpu.js";

// frames as gdb prints them for Node 20's threads (bench:speed --cpu-split tells each thread by its stack)
const frames = {
  threadpool: "#6  0x00000000018a7bdc in worker (arg=0x0) at ../deps/uv/src/threadpool.c:76\n",
  platform: "#6  0x0000000000d32c5b in node::(anonymous namespace)::PlatformWorkerThread(void*) ()\n",
  delayed:
    "#3  0x0000000000d37bf0 in node::WorkerThreadsTaskRunner::DelayedTaskScheduler::Start()::{lambda(void*)#1}\n",
  worker: "#4  0x0000000000dbb106 in node::worker::Worker::Run() ()\n",
  onnx:
    "#2  0x00007f in onnxruntime::concurrency::ThreadPoolTempl<onnxruntime::Env>::WorkerLoop(int) () from " +
    "/x/libonnxruntime.so.1\n",
  inspector: "#8  0x0000000000dfe1a5 in node::inspector::(anonymous namespace)::StartIoThreadMain(void*) ()\n",
};

describe("bench:speed --cpu-split: each thread told by its stack", () => {
  it("calls the process's own thread main, whatever its stack", () => {
    expect(kindOf(100, 100, frames.threadpool)).toBe("main");
  });

  it("tells libuv's pool, V8's platform workers, Workers, onnxruntime and the inspector apart", () => {
    expect(kindOf(100, 101, frames.threadpool)).toBe("libuv threadpool");
    expect(kindOf(100, 102, frames.platform)).toBe("V8 platform (GC, compiler)");
    expect(kindOf(100, 103, frames.delayed)).toBe("V8 platform (GC, compiler)");
    expect(kindOf(100, 104, frames.worker)).toBe("worker threads (PGlite, deflate)");
    expect(kindOf(100, 105, frames.onnx)).toBe("onnxruntime");
    expect(kindOf(100, 106, frames.inspector)).toBe("inspector");
    expect(kindOf(100, 107, "")).toBe("other");
  });

  it("an onnxruntime pool inside a Worker's thread is onnxruntime's, not the Worker's", () => {
    expect(kindOf(100, 108, frames.onnx + frames.worker)).toBe("onnxruntime");
  });
});

describe("bench:speed --cpu-split: CPU per request by kind", () => {
  const kinds = new Map<string, ThreadKind>([
    ["1/1", "main"],
    ["1/2", "libuv threadpool"],
    ["1/3", "libuv threadpool"],
  ]);

  it("sums each kind's threads over the window and divides by the requests", () => {
    const before = new Map([
      ["1/1", 1000],
      ["1/2", 10],
      ["1/3", 20],
    ]);
    const after = new Map([
      ["1/1", 1500],
      ["1/2", 30],
      ["1/3", 50],
      ["1/9", 40],
    ]);
    expect(splitPerRequest(before, after, kinds, 100)).toEqual({
      main: 5,
      "libuv threadpool": 0.5,
      "started in the window": 0.4,
    });
  });

  it("leaves out kinds that spent nothing, and reads largest first", () => {
    const split = splitPerRequest(
      new Map([["1/1", 5]]),
      new Map([
        ["1/1", 5],
        ["1/2", 7],
      ]),
      kinds,
      7,
    );
    expect(split).toEqual({ "libuv threadpool": 1 });
    expect(splitLine({ main: 0.5, "libuv threadpool": 2 })).toBe("libuv threadpool 2, main 0.5");
  });
});
