// What the events of an organization's members change: their invites, the members themselves and their dashboard
// sessions. project() hands these events here; the same handler feeds the inline projector and replay.
import type { ProjectableEvent } from "../../domain/events.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";

type MemberEvent = Extract<
  ProjectableEvent,
  { type: "MemberInvited" | "InviteAccepted" | "MemberRemoved" | "InviteCancelled" | "SessionStarted" | "SessionEnded" }
>;

export function projectMember(e: MemberEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "MemberInvited": {
      const d = e.data;
      return [
        {
          table: "invites",
          row: {
            invite_id: d.inviteId,
            org_id: d.orgId,
            email: d.email,
            role: d.role,
            token_hash: d.tokenHash,
            expires_at: d.expiresAt,
            invited_at: e.recordedAt,
            accepted_by: null,
            accepted_at: null,
            cancelled_at: null,
          },
        },
      ];
    }
    case "InviteAccepted": {
      const d = e.data;
      const invite = read.invite(d.inviteId);
      if (!invite) throw new Error(`projection: no invite ${d.inviteId}`);
      return [
        { table: "invites", row: Object.assign(invite, { accepted_by: d.memberId, accepted_at: e.recordedAt }) },
        {
          table: "members",
          row: {
            member_id: d.memberId,
            org_id: d.orgId,
            email: d.email,
            role: d.role,
            password_hash: d.passwordHash,
            invite_id: d.inviteId,
            joined_at: e.recordedAt,
            removed_at: null,
          },
        },
      ];
    }
    case "MemberRemoved": {
      const member = read.member(e.data.memberId);
      if (!member) throw new Error(`projection: no member ${e.data.memberId}`);
      return [{ table: "members", row: Object.assign(member, { removed_at: e.recordedAt }) }];
    }
    case "InviteCancelled": {
      const invite = read.invite(e.data.inviteId);
      if (!invite) throw new Error(`projection: no invite ${e.data.inviteId}`);
      return [{ table: "invites", row: Object.assign(invite, { cancelled_at: e.recordedAt }) }];
    }
    case "SessionStarted": {
      const d = e.data;
      return [
        {
          table: "sessions",
          row: {
            session_id: d.sessionId,
            org_id: d.orgId,
            member_id: d.memberId,
            started_at: e.recordedAt,
            expires_at: d.expiresAt,
            ended_at: null,
            end_reason: null,
          },
        },
      ];
    }
    case "SessionEnded": {
      const session = read.session(e.data.sessionId);
      if (!session) throw new Error(`projection: no session ${e.data.sessionId}`);
      return [
        { table: "sessions", row: Object.assign(session, { ended_at: e.recordedAt, end_reason: e.data.reason }) },
      ];
    }
    default: {
      const unknownEvent: never = e;
      throw new Error(`projection: unknown member event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
