// The one guard for every file an operator names: relative, inside the data root once links are resolved, a regular
// file opened without following a final link and checked on its descriptor, within a size limit; refusals name the
// file and a reason, never its content. Real files, links and a FIFO in a temporary data root.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkOperatorFile, OperatorFileError } from "../../src/ingest/operatorFiles.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();
let root: string;
let outside: string;

beforeAll(() => {
  const base = tempDir("operator-files-");
  root = join(base, "data");
  mkdirSync(join(root, "sub"), { recursive: true });
  outside = join(base, "outside.jsonl");
  writeFileSync(outside, '{"id": "secret", "text": "IS_SANDBOX=1"}\n');
  writeFileSync(join(root, "sub", "good.jsonl"), '{"id": "a", "text": "fine"}\n');
  writeFileSync(join(root, "big.jsonl"), "x".repeat(2048));
  symlinkSync(outside, join(root, "link-out.jsonl"));
  symlinkSync("/proc/self/environ", join(root, "environ"));
  symlinkSync("/dev/zero", join(root, "zero"));
  symlinkSync(join(root, "sub", "good.jsonl"), join(root, "link-in.jsonl"));
  execFileSync("mkfifo", [join(root, "pipe.jsonl")]);
});

const refusal = (name: string, maxBytes?: number) =>
  checkOperatorFile(root, name, maxBytes).then(
    () => "accepted",
    (err: unknown) => {
      expect(err).toBeInstanceOf(OperatorFileError);
      return (err as Error).message;
    },
  );

describe("the operator-file guard", () => {
  it("accepts a regular file under the data root, and a link staying inside it (answering its real path)", async () => {
    expect(await checkOperatorFile(root, "sub/good.jsonl")).toMatch(/\/data\/sub\/good\.jsonl$/);
    expect(await checkOperatorFile(root, "link-in.jsonl")).toMatch(/\/data\/sub\/good\.jsonl$/);
  });

  it('refuses "..", absolute paths and /proc/self/environ before the file system is asked', async () => {
    expect(await refusal("../outside.jsonl")).toBe(
      '"../outside.jsonl" cannot be read: the path leaves the data root ("..")',
    );
    expect(await refusal("sub/../../outside.jsonl")).toContain("leaves the data root");
    expect(await refusal("../../../../proc/self/environ")).toContain("leaves the data root");
    expect(await refusal(outside)).toContain("an absolute path");
    expect(await refusal("/proc/self/environ")).toContain("an absolute path");
    expect(await refusal("a\0b")).toContain("NUL");
  });

  it("refuses links out of the data root, to a file, to /proc/self/environ and to /dev/zero", async () => {
    expect(await refusal("link-out.jsonl")).toBe(
      '"link-out.jsonl" cannot be read: a link to a file outside the data root (DATA_ROOT)',
    );
    expect(await refusal("environ")).toContain("outside the data root");
    expect(await refusal("zero")).toContain("outside the data root");
  });

  it("refuses a FIFO at once (never waits for a writer), a directory, a missing file, one over the limit", async () => {
    expect(await refusal("pipe.jsonl")).toBe('"pipe.jsonl" cannot be read: a FIFO (named pipe), not a regular file');
    expect(await refusal("sub")).toContain("a directory, not a file");
    expect(await refusal("sub/missing.jsonl")).toContain("no such file");
    expect(await refusal("big.jsonl", 1024)).toContain("2048 bytes, over the 1024-byte limit");
  });

  it("never echoes the content of the file it refuses", async () => {
    for (const name of ["../outside.jsonl", "link-out.jsonl", "environ"])
      expect(await refusal(name)).not.toContain("IS_SANDBOX");
  });
});
