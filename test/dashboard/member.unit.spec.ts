// The members' rules as pure functions: invites (who may invite whom, one address one account, seven days, one use),
// sessions (start, end, only one's own), the roles' permissions, the spending-cap command, and the projection of
// member events. Given state, when a command, then events or a rejection.
import { describe, expect, it } from "vitest";
import {
  assertKeyMay,
  assertMay,
  canonicalEmail,
  decideMember,
  inviteStreamVersion,
  mayDo,
  passwordProblem,
  type InviteState,
  type Principal,
  type SessionState,
} from "../../src/domain/member.js";
import { decideKey } from "../../src/domain/apiKey.js";
import { project, type ProjectionReader } from "../../projections/project.js";
import type { ProjectableEvent } from "../../src/domain/events.js";
import type { RowOf } from "../../projections/tables.js";

const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;
import { rejectionCode } from "../support/rejectionCode.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";

const now = new Date("2031-01-10T12:00:00.000Z");
const owner: Principal = { kind: "member", memberId: "mem_owner", orgId: "org_a", role: "owner" };
const member: Principal = { kind: "member", memberId: "mem_dev", orgId: "org_a", role: "member" };
const outsider: Principal = { kind: "member", memberId: "mem_x", orgId: "org_b", role: "owner" };
const operator: Principal = { kind: "operator" };
const inviteCommand = (by: Principal, extra: Partial<Parameters<typeof decideMember>[0]> = {}) =>
  ({
    type: "InviteMember",
    inviteId: "inv_1",
    orgId: "org_a",
    organizationFound: true,
    emailTaken: false,
    by,
    email: "New@Lab.example",
    role: "member",
    tokenHash: "h".repeat(64),
    now,
    ...extra,
  }) as Parameters<typeof decideMember>[0];
const pending: InviteState = {
  inviteId: "inv_1",
  orgId: "org_a",
  email: "new@lab.example",
  role: "member",
  expiresAt: new Date(now.getTime() + 1000).toISOString(),
  acceptedBy: null,
  cancelled: false,
  memberRemoved: false,
};

describe("invites", () => {
  it("the operator and owners invite for seven days, keeping only the token hash; members, other orgs cannot", () => {
    const [event] = decideMember(inviteCommand(operator), undefined);
    expect(event).toEqual({
      type: "MemberInvited",
      data: {
        orgId: "org_a",
        inviteId: "inv_1",
        email: "new@lab.example",
        role: "member",
        tokenHash: "h".repeat(64),
        expiresAt: new Date(now.getTime() + SEVEN_DAYS_MS).toISOString(),
      },
    });
    expect(rejectionCode(() => decideMember(inviteCommand(owner, { role: "owner" } as never), undefined))).toBe(
      "accepted",
    );
    expect(rejectionCode(() => decideMember(inviteCommand(member), undefined))).toBe("FORBIDDEN");
    expect(rejectionCode(() => decideMember(inviteCommand(outsider), undefined))).toBe("NOT_FOUND");
    expect(
      rejectionCode(() => decideMember(inviteCommand(operator, { organizationFound: false } as never), undefined)),
    ).toBe("NOT_FOUND");
    expect(rejectionCode(() => decideMember(inviteCommand(operator, { emailTaken: true } as never), undefined))).toBe(
      "VALIDATION_ERROR",
    );
    expect(
      rejectionCode(() => decideMember(inviteCommand(operator, { email: "no-at-sign" } as never), undefined)),
    ).toBe("VALIDATION_ERROR");
    expect(rejectionCode(() => decideMember(inviteCommand(operator), pending))).toBe("VALIDATION_ERROR");
  });

  it("an invite is used once, before it expires; used, expired and unknown read alike", () => {
    const accept = {
      type: "AcceptInvite",
      memberId: "mem_new",
      passwordHash: "scrypt$...",
      emailTaken: false,
      inviterRemoved: false,
      now,
    } as const;
    expect(decideMember(accept, pending)).toEqual([
      {
        type: "InviteAccepted",
        data: {
          orgId: "org_a",
          inviteId: "inv_1",
          memberId: "mem_new",
          email: "new@lab.example",
          role: "member",
          passwordHash: "scrypt$...",
        },
      },
    ]);
    expect(rejectionCode(() => decideMember(accept, { ...pending, acceptedBy: "mem_other" }))).toBe("NOT_FOUND");
    expect(rejectionCode(() => decideMember(accept, { ...pending, expiresAt: now.toISOString() }))).toBe("NOT_FOUND");
    expect(rejectionCode(() => decideMember(accept, undefined))).toBe("NOT_FOUND");
    expect(rejectionCode(() => decideMember({ ...accept, emailTaken: true }, pending))).toBe("VALIDATION_ERROR");
    // an invite whose sender has been removed dies with their access, and reads like any other dead link
    expect(rejectionCode(() => decideMember({ ...accept, inviterRemoved: true }, pending))).toBe("NOT_FOUND");
  });

  it("an invite withdrawn before use reads as unknown; owners and the operator withdraw; a used one is not", () => {
    const accept = {
      type: "AcceptInvite",
      memberId: "mem_new",
      passwordHash: "scrypt$...",
      emailTaken: false,
      inviterRemoved: false,
      now,
    } as const;
    expect(rejectionCode(() => decideMember(accept, { ...pending, cancelled: true }))).toBe("NOT_FOUND");
    expect(decideMember({ type: "CancelInvite", by: owner }, pending)).toEqual([
      { type: "InviteCancelled", data: { orgId: "org_a", inviteId: "inv_1" } },
    ]);
    expect(decideMember({ type: "CancelInvite", by: operator }, { ...pending, cancelled: true })).toEqual([]);
    expect(rejectionCode(() => decideMember({ type: "CancelInvite", by: member }, pending))).toBe("FORBIDDEN");
    expect(rejectionCode(() => decideMember({ type: "CancelInvite", by: outsider }, pending))).toBe("NOT_FOUND");
    expect(
      rejectionCode(() => decideMember({ type: "CancelInvite", by: owner }, { ...pending, acceptedBy: "mem_new" })),
    ).toBe("VALIDATION_ERROR");
    expect(rejectionCode(() => decideMember({ type: "CancelInvite", by: owner }, undefined))).toBe("NOT_FOUND");
  });

  it("owners and the operator remove a member once; the last owner stays; nobody reaches another organization", () => {
    const joinedMember: InviteState = { ...pending, acceptedBy: "mem_new" };
    const remove = (by: Principal, currentOwners = 1) =>
      ({ type: "RemoveMember", memberId: "mem_new", currentOwners, by }) as const;
    expect(decideMember(remove(owner), joinedMember)).toEqual([
      {
        type: "MemberRemoved",
        data: { orgId: "org_a", inviteId: "inv_1", memberId: "mem_new", email: "new@lab.example" },
      },
    ]);
    expect(decideMember(remove(operator), { ...joinedMember, memberRemoved: true })).toEqual([]);
    expect(rejectionCode(() => decideMember(remove(member), joinedMember))).toBe("FORBIDDEN");
    expect(rejectionCode(() => decideMember(remove(outsider), joinedMember))).toBe("NOT_FOUND");
    expect(rejectionCode(() => decideMember(remove(owner), pending))).toBe("NOT_FOUND");
    const anOwner: InviteState = { ...joinedMember, role: "owner" };
    expect(rejectionCode(() => decideMember(remove(operator, 1), anOwner))).toBe("VALIDATION_ERROR");
    expect(decideMember(remove(owner, 2), anOwner)).toHaveLength(1);
  });

  it("an invite's stream counts its events: invited, then used or withdrawn, then the member removed", () => {
    expect(
      [
        undefined,
        pending,
        { ...pending, cancelled: true },
        { ...pending, acceptedBy: "m" },
        { ...pending, acceptedBy: "m", memberRemoved: true },
      ].map(inviteStreamVersion),
    ).toEqual([0, 1, 2, 2, 3]);
  });

  it("emails are compared trimmed and lower-case; passwords are long enough and bounded", () => {
    expect(canonicalEmail("  Ada@Example.ORG ")).toBe("ada@example.org");
    for (const bad of [
      "",
      "ada",
      "ada@",
      "@example.org",
      "a b@example.org",
      "ada@example",
      `${"a".repeat(250)}@example.org`,
    ])
      expect(canonicalEmail(bad), bad).toBeUndefined();
    expect(passwordProblem("short")).toMatch(/at least 12/);
    expect(passwordProblem("twelve chars")).toBeUndefined();
    expect(passwordProblem("x".repeat(201))).toMatch(/at most 200/);
  });

  it("passwords a guesser tries first are refused: all whitespace, one character repeated, the most common", () => {
    expect(passwordProblem(" ".repeat(12))).toMatch(/only spaces/);
    expect(passwordProblem(" \t \u00a0".repeat(4))).toMatch(/only spaces/);
    expect(passwordProblem("a".repeat(12))).toMatch(/one character repeated/);
    expect(passwordProblem("111111111111")).toMatch(/one character repeated/);
    for (const common of ["password1234", "Password1234", " QWERTY123456 ", "1qaz2wsx3edc", "qwertyuiop123"])
      expect(passwordProblem(common), common).toMatch(/most common/);
    // what a person would choose still passes
    for (const fine of ["correct horse battery staple", "aaaaaaaaaaab", "password1234!x", "  my own words  "])
      expect(passwordProblem(fine), fine).toBeUndefined();
  });
});

describe("sessions", () => {
  const live: SessionState = {
    sessionId: "s1",
    orgId: "org_a",
    memberId: "mem_dev",
    expiresAt: "2031-01-11T00:00:00.000Z",
    ended: false,
  };

  it("starts for a member or the operator with its end time", () => {
    expect(
      decideMember({ type: "StartSession", sessionId: "s1", principal: member, lifetimeMs: 3600_000, now }, undefined),
    ).toEqual([
      {
        type: "SessionStarted",
        data: { sessionId: "s1", orgId: "org_a", memberId: "mem_dev", expiresAt: "2031-01-10T13:00:00.000Z" },
      },
    ]);
    expect(
      decideMember({ type: "StartSession", sessionId: "s2", principal: operator, lifetimeMs: 1000, now }, undefined)[0]!
        .data,
    ).toMatchObject({ orgId: null, memberId: null });
  });

  it("ends once, by its member or the operator; another member is told there is no such session", () => {
    expect(decideMember({ type: "EndSession", reason: "signed-out", by: member }, live)).toEqual([
      { type: "SessionEnded", data: { sessionId: "s1", orgId: "org_a", memberId: "mem_dev", reason: "signed-out" } },
    ]);
    expect(decideMember({ type: "EndSession", reason: "revoked", by: member }, { ...live, ended: true })).toEqual([]);
    expect(rejectionCode(() => decideMember({ type: "EndSession", reason: "revoked", by: owner }, live))).toBe(
      "NOT_FOUND",
    );
    expect(rejectionCode(() => decideMember({ type: "EndSession", reason: "revoked", by: operator }, live))).toBe(
      "accepted",
    );
    expect(rejectionCode(() => decideMember({ type: "EndSession", reason: "revoked", by: member }, undefined))).toBe(
      "NOT_FOUND",
    );
  });
});

describe("roles", () => {
  it("owners do everything in their organization; members create keys, revoke their own; nobody acts elsewhere", () => {
    const actions = [
      "invite",
      "cancelInvite",
      "removeMember",
      "createKey",
      "revokeOwnKey",
      "revokeAnyKey",
      "setSpendingCap",
      "manageWebhooks",
    ] as const;
    expect(actions.map((a) => mayDo(owner, a, "org_a"))).toEqual([true, true, true, true, true, true, true, true]);
    expect(actions.map((a) => mayDo(member, a, "org_a"))).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(actions.map((a) => mayDo(owner, a, "org_b"))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(actions.map((a) => mayDo(operator, a, "org_b"))).toEqual([true, true, true, true, true, true, true, true]);
    expect(rejectionCode(() => assertMay(member, "setSpendingCap", "org_a"))).toBe("FORBIDDEN");
    expect(rejectionCode(() => assertMay(owner, "createKey", "org_b"))).toBe("NOT_FOUND");
  });
});

describe("the spending cap command", () => {
  const key = { keyId: "key_1", orgId: "org_a", revoked: false, spendingCapMicros: null, spentMicros: 5n };
  it("sets and clears a cap, recording the previous one; no change is no event; a revoked key is refused", () => {
    expect(decideKey({ type: "SetSpendingCap", keyId: "key_1", spendingCapMicros: 2_000_000n }, key)).toEqual([
      {
        type: "ApiKeySpendingCapChanged",
        data: { keyId: "key_1", orgId: "org_a", spendingCapMicros: "2000000", previous: null },
      },
    ]);
    expect(
      decideKey(
        { type: "SetSpendingCap", keyId: "key_1", spendingCapMicros: null },
        { ...key, spendingCapMicros: 2_000_000n },
      )[0]!.data,
    ).toMatchObject({ spendingCapMicros: null, previous: "2000000" });
    expect(decideKey({ type: "SetSpendingCap", keyId: "key_1", spendingCapMicros: null }, key)).toEqual([]);
    expect(
      rejectionCode(() => decideKey({ type: "SetSpendingCap", keyId: "key_1", spendingCapMicros: -1n }, key)),
    ).toBe("VALIDATION_ERROR");
    expect(
      rejectionCode(() =>
        decideKey({ type: "SetSpendingCap", keyId: "key_1", spendingCapMicros: 1n }, { ...key, revoked: true }),
      ),
    ).toBe("VALIDATION_ERROR");
    expect(
      rejectionCode(() => decideKey({ type: "SetSpendingCap", keyId: "key_1", spendingCapMicros: 1n }, undefined)),
    ).toBe("NOT_FOUND");
  });
});

describe("the projection of member events", () => {
  const rows: { invite?: RowOf["invites"]; member?: RowOf["members"]; session?: RowOf["sessions"] } = {};
  const reader: ProjectionReader = {
    organization: () => undefined,
    balance: () => undefined,
    apiKey: () => undefined,
    usage: () => undefined,
    collectionUsage: () => undefined,
    invite: () => rows.invite,
    member: () => rows.member,
    session: () => rows.session,
    ingestion: () => undefined,
    webhookEndpoint: () => undefined,
    webhookDelivery: () => undefined,
    alert: () => undefined,
    alertRun: () => undefined,
  };
  const at = (
    e: Omit<ProjectableEvent, "position" | "streamVersion" | "recordedAt">,
    position: number,
    recordedAt: string,
  ): ProjectableEvent => ({ ...e, position, streamVersion: 1, recordedAt }) as ProjectableEvent;

  it("an accepted invite becomes a member; a session ends with its reason; a key's last use is its last event", () => {
    const [invite] = project(
      FEATURE_PROJECTORS,
      at(
        {
          type: "MemberInvited",
          data: {
            orgId: "org_a",
            inviteId: "inv_1",
            email: "a@b.example",
            role: "owner",
            tokenHash: "t",
            expiresAt: "2031-01-17T12:00:00.000Z",
          },
        },
        1,
        "2031-01-10T12:00:00.000Z",
      ),
      reader,
    );
    expect(invite).toEqual({
      table: "invites",
      row: {
        invite_id: "inv_1",
        org_id: "org_a",
        email: "a@b.example",
        role: "owner",
        token_hash: "t",
        expires_at: "2031-01-17T12:00:00.000Z",
        invited_at: "2031-01-10T12:00:00.000Z",
        accepted_by: null,
        accepted_at: null,
        cancelled_at: null,
      },
    });
    rows.invite = invite!.row as RowOf["invites"];
    const accepted = project(
      FEATURE_PROJECTORS,
      at(
        {
          type: "InviteAccepted",
          data: {
            orgId: "org_a",
            inviteId: "inv_1",
            memberId: "mem_1",
            email: "a@b.example",
            role: "owner",
            passwordHash: "scrypt$x",
          },
        },
        2,
        "2031-01-11T08:00:00.000Z",
      ),
      reader,
    );
    expect(accepted).toEqual([
      {
        table: "invites",
        row: expect.objectContaining({ accepted_by: "mem_1", accepted_at: "2031-01-11T08:00:00.000Z" }),
      },
      {
        table: "members",
        row: {
          member_id: "mem_1",
          org_id: "org_a",
          email: "a@b.example",
          role: "owner",
          password_hash: "scrypt$x",
          invite_id: "inv_1",
          joined_at: "2031-01-11T08:00:00.000Z",
          removed_at: null,
        },
      },
    ]);
    rows.member = accepted[1]!.row as RowOf["members"];
    const [session] = project(
      FEATURE_PROJECTORS,
      at(
        {
          type: "SessionStarted",
          data: { sessionId: "s1", orgId: "org_a", memberId: "mem_1", expiresAt: "2031-01-11T20:00:00.000Z" },
        },
        3,
        "2031-01-11T08:00:00.000Z",
      ),
      reader,
    );
    rows.session = session!.row as RowOf["sessions"];
    expect(
      project(
        FEATURE_PROJECTORS,
        at(
          { type: "SessionEnded", data: { sessionId: "s1", orgId: "org_a", memberId: "mem_1", reason: "revoked" } },
          4,
          "2031-01-11T09:00:00.000Z",
        ),
        reader,
      ),
    ).toEqual([
      {
        table: "sessions",
        row: {
          session_id: "s1",
          org_id: "org_a",
          member_id: "mem_1",
          started_at: "2031-01-11T08:00:00.000Z",
          expires_at: "2031-01-11T20:00:00.000Z",
          ended_at: "2031-01-11T09:00:00.000Z",
          end_reason: "revoked",
        },
      },
    ]);
    expect(
      project(
        FEATURE_PROJECTORS,
        at(
          {
            type: "JournalRequested",
            data: { orgId: "org_a", keyId: "key_1", requestId: "jr_1", title: "T", issn: null, note: null },
          },
          5,
          "2031-01-12T00:00:00.000Z",
        ),
        reader,
      ),
    ).toEqual([
      {
        table: "key_last_used",
        row: { key_id: "key_1", org_id: "org_a", used_at: "2031-01-12T00:00:00.000Z", position: 5 },
      },
    ]);
    // a removed member's row stays, marked; a withdrawn invite likewise
    expect(
      project(
        FEATURE_PROJECTORS,
        at(
          {
            type: "MemberRemoved",
            data: { orgId: "org_a", inviteId: "inv_1", memberId: "mem_1", email: "a@b.example" },
          },
          6,
          "2031-01-13T00:00:00.000Z",
        ),
        reader,
      ),
    ).toEqual([
      {
        table: "members",
        row: expect.objectContaining({
          member_id: "mem_1",
          email: "a@b.example",
          removed_at: "2031-01-13T00:00:00.000Z",
        }),
      },
    ]);
    expect(
      project(
        FEATURE_PROJECTORS,
        at({ type: "InviteCancelled", data: { orgId: "org_a", inviteId: "inv_1" } }, 7, "2031-01-14T00:00:00.000Z"),
        reader,
      ),
    ).toEqual([
      {
        table: "invites",
        row: expect.objectContaining({ invite_id: "inv_1", cancelled_at: "2031-01-14T00:00:00.000Z" }),
      },
    ]);
  });
});

describe("what a key may do beyond searching: what its creator may", () => {
  it("refuses a key a member who is not an owner created the webhook endpoints; owners' and the operator's may", () => {
    expect(() => assertKeyMay("member", "manageWebhooks")).toThrow(/a key a member created may not manage webhook/);
    expect(() => assertKeyMay("owner", "manageWebhooks")).not.toThrow();
    expect(() => assertKeyMay(null, "manageWebhooks")).not.toThrow();
  });
});
