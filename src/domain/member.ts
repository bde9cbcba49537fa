// Members, invites and sessions: decideMember(command, state) -> events, and who may do what in the dashboard. Pure:
// tokens and password hashes are drawn and computed by the caller (randomness and scrypt are I/O-like), only their
// hashes enter the events, and the time of the decision comes in the command.
import type { DomainEvent, MemberRole, SessionEndReason } from "./events.js";
import { Rejection } from "./rejection.js";
import { COMMON_PASSWORDS } from "./commonPasswords.js";

/** One use, seven days. */
const INVITE_LIFETIME_MS = 7 * 24 * 3600 * 1000;
export const PASSWORD_MIN_LENGTH = 12;
/** scrypt's input stays small whatever a client sends */
const PASSWORD_MAX_LENGTH = 200;
const EMAIL = /^[^\s@<>"',;]{1,64}@[^\s@<>"',;]+\.[^\s@<>"',;]{2,}$/;

/** An email as the service keeps and compares it: trimmed, lower-case; undefined when it is not an address. */
export function canonicalEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : undefined;
}

/**
 * Why a password is refused, or undefined: length (long passphrases beat composition rules), and never one a guesser
 * tries first: all whitespace, one character repeated, or one of the most common passwords (commonPasswords.ts).
 */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `a password needs at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `a password has at most ${PASSWORD_MAX_LENGTH} characters`;
  if (password.trim() === "") return "a password cannot be only spaces; choose a passphrase of words";
  if (new Set(password).size === 1) return "a password cannot be one character repeated; choose a passphrase of words";
  if (COMMON_PASSWORDS.has(password.trim().toLowerCase()))
    return "this password is among the most common ones and is guessed first; choose a passphrase of words";
  return undefined;
}

export interface InviteState {
  inviteId: string;
  orgId: string;
  email: string;
  role: MemberRole;
  expiresAt: string;
  acceptedBy: string | null;
  /** withdrawn before use */
  cancelled: boolean;
  /** the member it made was removed */
  memberRemoved: boolean;
}

/**
 * An invite's stream: MemberInvited, then InviteAccepted or InviteCancelled, then MemberRemoved after an acceptance.
 */
export const inviteStreamVersion = (invite: InviteState | undefined): number =>
  invite ? 1 + (invite.acceptedBy !== null ? 1 : 0) + (invite.cancelled ? 1 : 0) + (invite.memberRemoved ? 1 : 0) : 0;

export interface SessionState {
  sessionId: string;
  orgId: string | null;
  memberId: string | null;
  expiresAt: string;
  ended: boolean;
}

/** Who acts in the dashboard or the operator API: the operator, or a member of an organization with a role. */
export type Principal = { kind: "operator" } | { kind: "member"; memberId: string; orgId: string; role: MemberRole };

export type MemberCommand =
  | {
      type: "InviteMember";
      inviteId: string;
      orgId: string;
      /** whether the organization exists, as the command runner found it */
      organizationFound: boolean;
      /** whether some member already signs in with this email (one account per address) */
      emailTaken: boolean;
      by: Principal;
      email: string;
      role: MemberRole;
      tokenHash: string;
      now: Date;
    }
  /** `inviterRemoved`: the member who sent the invite has since been removed (their invites die with their access) */
  | {
      type: "AcceptInvite";
      memberId: string;
      passwordHash: string;
      emailTaken: boolean;
      inviterRemoved: boolean;
      now: Date;
    }
  /**
   * the member the invite made leaves the organization; `currentOwners`: the organization's owners now, this one
   * included
   */
  | { type: "RemoveMember"; memberId: string; currentOwners: number; by: Principal }
  | { type: "CancelInvite"; by: Principal }
  | { type: "StartSession"; sessionId: string; principal: Principal; lifetimeMs: number; now: Date }
  | { type: "EndSession"; reason: SessionEndReason; by: Principal };

/** State: the invite for invite commands, the session for session commands (undefined when there is none yet). */
export function decideMember(command: MemberCommand, state: InviteState | SessionState | undefined): DomainEvent[] {
  switch (command.type) {
    case "InviteMember": {
      if (state) throw new Rejection("VALIDATION_ERROR", `invite ${command.inviteId} already exists`);
      if (!command.organizationFound) throw new Rejection("NOT_FOUND", "organization not found");
      assertMay(command.by, "invite", command.orgId);
      const email = canonicalEmail(command.email);
      if (!email) throw new Rejection("VALIDATION_ERROR", "email must be an email address");
      if (command.emailTaken)
        throw new Rejection("VALIDATION_ERROR", "this email already belongs to a member of this organization");
      const expiresAt = new Date(command.now.getTime() + INVITE_LIFETIME_MS).toISOString();
      return [
        {
          type: "MemberInvited",
          data: {
            orgId: command.orgId,
            inviteId: command.inviteId,
            email,
            role: command.role,
            tokenHash: command.tokenHash,
            expiresAt,
          },
        },
      ];
    }
    case "AcceptInvite": {
      const invite = state as InviteState | undefined;
      // an unknown, used and expired invite read the same to whoever holds the link
      if (
        !invite ||
        invite.acceptedBy !== null ||
        invite.cancelled ||
        command.inviterRemoved ||
        Date.parse(invite.expiresAt) <= command.now.getTime()
      ) {
        throw new Rejection(
          "NOT_FOUND",
          "this invite link is not valid: it was used, has expired or never existed; ask for a new one",
        );
      }
      if (command.emailTaken)
        throw new Rejection("VALIDATION_ERROR", "this email already belongs to a member; sign in instead");
      const { orgId, inviteId, email, role } = invite;
      return [
        {
          type: "InviteAccepted",
          data: { orgId, inviteId, memberId: command.memberId, email, role, passwordHash: command.passwordHash },
        },
      ];
    }
    case "RemoveMember": {
      const invite = state as InviteState | undefined;
      if (!invite || invite.acceptedBy !== command.memberId)
        throw new Rejection("NOT_FOUND", `member ${command.memberId} not found`);
      assertMay(command.by, "removeMember", invite.orgId);
      if (invite.memberRemoved) return [];
      if (invite.role === "owner" && command.currentOwners <= 1) {
        throw new Rejection(
          "VALIDATION_ERROR",
          "an organization keeps at least one owner: invite another owner before removing this one",
        );
      }
      return [
        {
          type: "MemberRemoved",
          data: { orgId: invite.orgId, inviteId: invite.inviteId, memberId: command.memberId, email: invite.email },
        },
      ];
    }
    case "CancelInvite": {
      const invite = state as InviteState | undefined;
      if (!invite) throw new Rejection("NOT_FOUND", "invite not found");
      assertMay(command.by, "cancelInvite", invite.orgId);
      if (invite.acceptedBy !== null)
        throw new Rejection("VALIDATION_ERROR", "this invite was used: remove the member instead");
      if (invite.cancelled) return [];
      return [{ type: "InviteCancelled", data: { orgId: invite.orgId, inviteId: invite.inviteId } }];
    }
    case "StartSession": {
      if (state) throw new Rejection("VALIDATION_ERROR", "session already exists");
      const p = command.principal;
      const expiresAt = new Date(command.now.getTime() + command.lifetimeMs).toISOString();
      return [
        {
          type: "SessionStarted",
          data: {
            sessionId: command.sessionId,
            orgId: p.kind === "member" ? p.orgId : null,
            memberId: p.kind === "member" ? p.memberId : null,
            expiresAt,
          },
        },
      ];
    }
    case "EndSession": {
      const session = state as SessionState | undefined;
      if (!session) throw new Rejection("NOT_FOUND", "no such session");
      // a member ends their own sessions; the operator any
      if (command.by.kind === "member" && command.by.memberId !== session.memberId)
        throw new Rejection("NOT_FOUND", "no such session");
      if (session.ended) return [];
      return [
        {
          type: "SessionEnded",
          data: {
            sessionId: session.sessionId,
            orgId: session.orgId,
            memberId: session.memberId,
            reason: command.reason,
          },
        },
      ];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
}

/** What the dashboard lets someone do in an organization. */
type MemberAction =
  | "invite"
  | "cancelInvite"
  | "removeMember"
  | "createKey"
  | "revokeOwnKey"
  | "revokeAnyKey"
  | "setSpendingCap"
  | "manageWebhooks";

/**
 * The roles' rules: an owner does everything in their organization; a member reads every page, creates keys and
 * revokes the keys they created; inviting, withdrawing invites, removing members, spending caps, others' keys and
 * webhook endpoints (where the organization's events go) are the owners'. The operator may do anything anywhere.
 * Nobody acts on another organization (that reads as not found).
 */
export function mayDo(by: Principal, action: MemberAction, orgId: string): boolean {
  if (by.kind === "operator") return true;
  if (by.orgId !== orgId) return false;
  if (by.role === "owner") return true;
  return action === "createKey" || action === "revokeOwnKey";
}

export function assertMay(by: Principal, action: MemberAction, orgId: string): void {
  if (by.kind === "member" && by.orgId !== orgId) throw new Rejection("NOT_FOUND", "not found");
  if (!mayDo(by, action, orgId))
    throw new Rejection("FORBIDDEN", `only an owner of the organization may ${ACTION_TEXT[action]}`);
}

/**
 * What a key may do beyond searching and spending is what its creator may (an owner's key what an owner may): a key a
 * member created does not manage webhook endpoints, whatever door it comes through. `creatorRole`: the role of the
 * member who created it; null for a key the operator created or one recorded before creators were.
 */
export function assertKeyMay(creatorRole: MemberRole | null, action: "manageWebhooks"): void {
  if (creatorRole === null || creatorRole === "owner") return;
  throw new Rejection(
    "FORBIDDEN",
    `a key a member created may not ${ACTION_TEXT[action]}, as the member may not: use a key an owner or the ` +
      "operator created, or ask an owner",
  );
}

const ACTION_TEXT: Record<MemberAction, string> = {
  invite: "invite members",
  cancelInvite: "withdraw invites",
  removeMember: "remove members",
  createKey: "create API keys",
  revokeOwnKey: "revoke this key",
  revokeAnyKey: "revoke another member's key",
  setSpendingCap: "set or clear spending caps",
  manageWebhooks: "manage webhook endpoints and the low-balance threshold",
};
