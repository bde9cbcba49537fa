// The CLI's dashboard commands against its own embedded store: a key's spending cap set and cleared, and an invite
// link for a member, each an event with the operator as actor, replaying equal.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

function cli(dataDir: string, ...args: string[]) {
  const res = spawnSync(process.execPath, ["bin/litsearch.mjs", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", PUBLIC_URL: "https://search.example.org" },
    encoding: "utf8",
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe("litsearch CLI: caps and invites", () => {
  it("sets and clears a spending cap, and prints an invite link under PUBLIC_URL", () => {
    const dataDir = tempDir("litsearch-cli-dash-");
    const org = JSON.parse(cli(dataDir, "org", "create", "--name", "Cap lab", "--init").out) as { id: string };
    const key = JSON.parse(cli(dataDir, "key", "create", org.id, "--mode", "live", "--spending-cap", "1.00").out) as {
      id: string;
    };
    const capped = cli(dataDir, "key", "cap", key.id, "7.25");
    expect(capped.code, capped.err).toBe(0);
    expect(JSON.parse(capped.out)).toMatchObject({ id: key.id, spendingCap: "7.250000" });
    expect(JSON.parse(cli(dataDir, "key", "cap", key.id, "--clear").out).spendingCap).toBeNull();
    expect(JSON.parse(cli(dataDir, "key", "show", key.id).out).spendingCap).toBeNull();
    const bad = cli(dataDir, "key", "cap", key.id, "lots");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/VALIDATION_ERROR/);
    const neither = cli(dataDir, "key", "cap", key.id); // neither an amount nor --clear
    expect([neither.code, neither.err]).toEqual([
      1,
      expect.stringMatching(/usage: key cap KEY_ID AMOUNT, or key cap KEY_ID --clear/),
    ]);
    expect(cli(dataDir, "key", "cap", "key_missing", "1.00").err).toMatch(/NOT_FOUND/);

    const invite = cli(dataDir, "member", "invite", org.id, "Lead@Cap.example", "--role", "owner");
    expect(invite.code, invite.err).toBe(0);
    expect(JSON.parse(invite.out)).toMatchObject({
      email: "lead@cap.example",
      role: "owner",
      inviteUrl: expect.stringMatching(/^https:\/\/search\.example\.org\/dashboard\/invite\/[\w-]{43}$/),
    });
    expect(cli(dataDir, "member", "invite", org.id, "x@cap.example", "--role", "admin").code).toBe(1);

    // the operator lists members and open invites with their ids, and withdraws an invite by its id
    const roster = JSON.parse(cli(dataDir, "member", "list", org.id, "--json").out) as {
      members: unknown[];
      invites: { inviteId: string; email: string }[];
    };
    expect(roster.members).toEqual([]);
    const open = roster.invites.find((i) => i.email === "lead@cap.example")!;
    const withdrawn = cli(dataDir, "member", "cancel-invite", org.id, open.inviteId);
    expect(withdrawn.code, withdrawn.err).toBe(0);
    expect(JSON.parse(withdrawn.out)).toEqual({ inviteId: open.inviteId, cancelled: true });
    expect(JSON.parse(cli(dataDir, "member", "list", org.id, "--json").out).invites).toEqual([]);
    // too few or too many arguments: refused before anything runs, with the command's usage
    for (const args of [
      ["member", "remove", org.id],
      ["member", "remove", org.id, "mem_x", "extra"],
      ["balance"],
      ["member", "cancel-invite", org.id, ""],
    ]) {
      const wrong = cli(dataDir, ...args);
      expect([wrong.code, wrong.err], args.join(" ")).toEqual([
        1,
        expect.stringMatching(
          /usage: (member remove ORG_ID MEMBER_ID|balance ORG_ID|member cancel-invite ORG_ID INVITE_ID)/,
        ),
      ]);
    }

    const replay = cli(dataDir, "replay");
    expect(replay.code, replay.out).toBe(0);
    expect(replay.out).toMatch(/equal\s+invites/);
    expect(cli(dataDir, "verify").code).toBe(0);
  }, 400_000);

  it("creates a key with a name, which key show prints (a key without one shows null)", () => {
    const dataDir = tempDir("litsearch-cli-name-");
    const org = JSON.parse(cli(dataDir, "org", "create", "--name", "Name lab", "--init").out) as { id: string };
    const named = cli(dataDir, "key", "create", org.id, "--mode", "test", "--name", "CI smoke tests");
    expect(named.code, named.err).toBe(0);
    const { id } = JSON.parse(named.out) as { id: string };
    expect(JSON.parse(cli(dataDir, "key", "show", id).out)).toMatchObject({ id, name: "CI smoke tests", mode: "test" });
    const unnamed = JSON.parse(cli(dataDir, "key", "create", org.id, "--mode", "test").out) as { id: string };
    expect(JSON.parse(cli(dataDir, "key", "show", unnamed.id).out).name).toBeNull();
  }, 180_000);
});
