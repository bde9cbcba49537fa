// The members page: members, invitations, and the forms that invite and remove.
import { html, type Html } from "./html.js";
import type { MemberRole } from "../../domain/events.js";
import {
  type FormInput,
  type Viewer,
  chosen,
  csrfField,
  dangerButton,
  layout,
  notice,
  tableHead,
  typed,
  when,
} from "./layout.js";

type Invite = { inviteId: string; email: string; role: MemberRole; invitedAt: string; expiresAt: string };

/** The open invites, each with its withdraw form when `withdraw` makes one (the members page of an owner). */
export function invitesTable(invites: Invite[], withdraw?: (invite: Invite) => Html): Html {
  if (invites.length === 0) return html``;
  const row = (i: Invite) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.invitedAt)}</td>
<td>${when(i.expiresAt)}</td>${withdraw ? html`<td>${withdraw(i)}</td>` : ""}</tr>`;
  return html`<div class="scroll" tabindex="0"><table><caption>Open invites</caption>
${tableHead(["Email", "Role", "Invited", "Expires", withdraw !== undefined && "Action"])}
<tbody>${invites.map(row)}</tbody></table></div>`;
}

export function membersPage(
  viewer: Viewer,
  roster: {
    members: { memberId: string; email: string; role: MemberRole; joinedAt: string }[];
    invites: Invite[];
  },
  opts: { canInvite: boolean; canRemove: boolean; self: string; inviteUrl?: string; error?: string; input?: FormInput },
): Html {
  const remove = (m: { memberId: string }) =>
    m.memberId === opts.self ? "you" : dangerButton(viewer, `/dashboard/members/${m.memberId}/remove`, "Remove");
  const withdraw = (i: Invite) => dangerButton(viewer, `/dashboard/invites/${i.inviteId}/cancel`, "Withdraw");
  const inviteLink = (url: string) => html`<section class="created"><h2>Invite link</h2>
<p>Send this link to the person you invited; it works once, for 7 days, and is shown only now.</p>
<p class="secret"><code id="invite-url">${url}</code> <button type="button" data-copy="invite-url">Copy</button></p>
</section>`;
  return layout(
    viewer,
    "members",
    "Members",
    html`${opts.error ? notice("error", opts.error) : ""}
${opts.inviteUrl ? inviteLink(opts.inviteUrl) : ""}
<div class="scroll" tabindex="0"><table>
<caption>Members</caption>
${tableHead(["Email", "Role", "Joined", opts.canRemove && "Action"])}
<tbody>${roster.members.map(
      (m) =>
        html`<tr><td>${m.email}</td><td>${m.role}</td><td>${when(m.joinedAt)}</td>${
          opts.canRemove ? html`<td>${remove(m)}</td>` : ""
        }</tr>`,
    )}</tbody>
</table></div>
${invitesTable(roster.invites, opts.canInvite ? withdraw : undefined)}
${
  opts.canInvite
    ? html`<section aria-labelledby="invite-title"><h2 id="invite-title">Invite someone</h2>
<form method="post" action="/dashboard/members/invites" class="grid">
  ${csrfField(viewer.csrfToken)}
  <label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="254"
   value="${typed(opts.input, "email")}">
  <label for="invite-role">Role</label><select id="invite-role" name="role">
    <option value="member">member</option><option value="owner"${chosen(
      typed(opts.input, "role") === "owner",
      "selected",
    )}>owner</option></select>
  <button type="submit">Create invite link</button>
</form></section>`
    : html`<p class="hint">Owners invite members.</p>`
}`,
  );
}
