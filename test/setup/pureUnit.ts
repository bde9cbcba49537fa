// The unit tier is pure: a *.unit.spec.ts file reads no file of ../shared (the real data and the reference service)
// and starts no process. This setup file of the unit project (vitest.config.ts) makes either fail the test that tries
// it, naming what to do instead: a small fixture under test/fixtures, or the file renamed *.int.spec.ts.
import childProcess from "node:child_process";
import fs from "node:fs";
import fsPromises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SHARED_ROOT } from "./sharedTier.js";

const SHARED = SHARED_ROOT;

function pathOf(target: unknown): string | undefined {
  if (typeof target === "string") return resolve(target);
  if (target instanceof URL && target.protocol === "file:") return fileURLToPath(target);
  if (Buffer.isBuffer(target)) return resolve(target.toString());
  return undefined;
}

function refuseShared(what: string, target: unknown): void {
  const path = pathOf(target);
  if (path !== undefined && (path === SHARED || path.startsWith(`${SHARED}/`)))
    throw new Error(
      `${what}(${path}): a unit test reads no file of ../shared; give it a small fixture under test/fixtures ` +
        "or rename the file *.int.spec.ts",
    );
}

type Fn = (...args: unknown[]) => unknown;

function guard(
  target: Record<string, unknown>,
  names: string[],
  check: (name: string, args: unknown[]) => void,
  promised = false,
): void {
  for (const name of names) {
    const original = target[name] as Fn | undefined;
    if (typeof original !== "function") continue;
    target[name] = function (this: unknown, ...args: unknown[]) {
      try {
        check(name, args);
      } catch (error) {
        // the promise API refuses the way it fails: by rejecting
        if (promised) return Promise.reject(error);
        throw error;
      }
      return original.apply(this, args);
    };
  }
}

const READERS = [
  "readFileSync",
  "readFile",
  "createReadStream",
  "openSync",
  "open",
  "readdirSync",
  "readdir",
  "opendir",
];
guard(fs as unknown as Record<string, unknown>, [...READERS, "statSync", "existsSync"], (name, args) =>
  refuseShared(`fs.${name}`, args[0]),
);
guard(
  fsPromises as unknown as Record<string, unknown>,
  READERS,
  (name, args) => refuseShared(`fs/promises.${name}`, args[0]),
  true,
);
guard(
  childProcess as unknown as Record<string, unknown>,
  ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"],
  (name, args) => {
    // mkfifo makes a FIFO for the tests of file checks and exits: Node has no call for it
    if (args[0] === "mkfifo") return;
    throw new Error(`child_process.${name}(${String(args[0])}): a unit test starts no process; make it *.int.spec.ts`);
  },
);
syncBuiltinESMExports();
