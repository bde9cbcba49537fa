// The members' tables, written by their projection (memberProjection.ts): members, invites and sessions.
import type { TableSpec } from "../../../projections/tables.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    members: MemberRow;
    invites: InviteRow;
    sessions: SessionRow;
  }
}

interface MemberRow {
  member_id: string;
  org_id: string;
  email: string;
  role: string;
  /** scrypt parameters, salt and hash (src/usecases/auth/passwords.ts) */
  password_hash: string;
  invite_id: string;
  joined_at: string;
  /** set when an owner or the operator removed the member: their sessions stop, the address is free again */
  removed_at: string | null;
}
interface InviteRow {
  invite_id: string;
  org_id: string;
  email: string;
  role: string;
  /** SHA-256 of the one-use token in the invite link */
  token_hash: string;
  expires_at: string;
  invited_at: string;
  accepted_by: string | null;
  accepted_at: string | null;
  /** set when the invite was withdrawn before use: its link reads as unknown */
  cancelled_at: string | null;
}
export interface SessionRow {
  /** SHA-256 of the cookie's token */
  session_id: string;
  /** null for an operator session */
  org_id: string | null;
  member_id: string | null;
  started_at: string;
  expires_at: string;
  ended_at: string | null;
  end_reason: string | null;
}

export const MEMBERS: TableSpec<"members"> = {
  name: "members",
  columns: {
    member_id: "text",
    org_id: "text",
    email: "text",
    role: "text",
    password_hash: "text",
    invite_id: "text",
    joined_at: "timestamptz",
    removed_at: "timestamptz",
  },
  primaryKey: ["member_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}members (
  member_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  invite_id TEXT NOT NULL, joined_at TIMESTAMPTZ NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}members_org ON ${p}members (org_id);
-- a removed member stays, for the history; an address belongs to one member at a time (the first release had email
-- UNIQUE)
ALTER TABLE ${p}members ADD COLUMN IF NOT EXISTS removed_at TIMESTAMPTZ;
ALTER TABLE ${p}members DROP CONSTRAINT IF EXISTS ${p}members_email_key;
CREATE UNIQUE INDEX IF NOT EXISTS ${p}members_current_email ON ${p}members (email) WHERE removed_at IS NULL;
`,
};

export const INVITES: TableSpec<"invites"> = {
  name: "invites",
  columns: {
    invite_id: "text",
    org_id: "text",
    email: "text",
    role: "text",
    token_hash: "text",
    expires_at: "timestamptz",
    invited_at: "timestamptz",
    accepted_by: "text",
    accepted_at: "timestamptz",
    cancelled_at: "timestamptz",
  },
  primaryKey: ["invite_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}invites (
  invite_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  expires_at TIMESTAMPTZ NOT NULL, invited_at TIMESTAMPTZ NOT NULL, accepted_by TEXT, accepted_at TIMESTAMPTZ);
ALTER TABLE ${p}invites ADD COLUMN IF NOT EXISTS cancelled_at TIMESTAMPTZ;
`,
};

export const SESSIONS: TableSpec<"sessions"> = {
  name: "sessions",
  columns: {
    session_id: "text",
    org_id: "text",
    member_id: "text",
    started_at: "timestamptz",
    expires_at: "timestamptz",
    ended_at: "timestamptz",
    end_reason: "text",
  },
  primaryKey: ["session_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}sessions (
  session_id TEXT PRIMARY KEY, org_id TEXT, member_id TEXT, started_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  ended_at TIMESTAMPTZ, end_reason TEXT);
CREATE INDEX IF NOT EXISTS ${p}sessions_member ON ${p}sessions (member_id);
`,
};
