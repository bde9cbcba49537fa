// JSON answers of the dashboard's forms for scripts (browsers get pages and redirects), for the OpenAPI document.
import { z } from "zod";

export const DashboardSignedIn = z.object({
  signedIn: z.literal(true),
  role: z.enum(["owner", "member", "operator"]),
  csrfToken: z.string().meta({
    description:
      "The session's CSRF token: send it as X-CSRF-Token (or the `_csrf` form field) on every POST of the session.",
  }),
  expiresAt: z.string(),
});
export const DashboardInvite = z.object({
  inviteUrl: z.string(),
  expiresAt: z.string(),
  email: z.string(),
  role: z.enum(["owner", "member"]),
});
export const DashboardCap = z.object({ id: z.string(), spendingCap: z.string().nullable() });
export const DashboardSignedOut = z.object({ signedOut: z.literal(true) });
export const DashboardSessionRevoked = z.object({ sessionId: z.string(), revoked: z.literal(true) });
export const MemberRemoved = z.object({ memberId: z.string(), removed: z.literal(true) });
export const InviteCancelled = z.object({ inviteId: z.string(), cancelled: z.literal(true) });
