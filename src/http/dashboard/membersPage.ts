// The members page: members, invitations, and the forms that invite and remove.
import { html, type Html } from "./html.js";
import type { MemberRole } from "../../domain/events.js";
import { type Viewer, csrfField, layout, notice, when } from "./layout.js";

export function membersPage(
  viewer: Viewer,
  roster: {
    members: { memberId: string; email: string; role: MemberRole; joinedAt: string }[];
    invites: { inviteId: string; email: string; role: MemberRole; invitedAt: string; expiresAt: string }[];
  },
  opts: { canInvite: boolean; canRemove: boolean; self: string; inviteUrl?: string; error?: string },
): Html {
  const action = (path: string, label: string) =>
    html`<form method="post" action="${path}" class="inline">${csrfField(viewer.csrfToken)}<button type="submit" class="danger">${label}</button></form>`;
  return layout(
    viewer,
    "members",
    "Members",
    html`${opts.error ? notice("error", opts.error) : ""}
${opts.inviteUrl ? html`<section class="created"><h2>Invite link</h2><p>Send this link to the person you invited; it works once, for 7 days, and is shown only now.</p><p class="secret"><code id="invite-url">${opts.inviteUrl}</code> <button type="button" data-copy="invite-url">Copy</button></p></section>` : ""}
<div class="scroll"><table>
<caption>Members</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th>${opts.canRemove ? html`<th scope="col">Action</th>` : ""}</tr></thead>
<tbody>${roster.members.map((m) => html`<tr><td>${m.email}</td><td>${m.role}</td><td>${when(m.joinedAt)}</td>${opts.canRemove ? html`<td>${m.memberId === opts.self ? "you" : action(`/dashboard/members/${m.memberId}/remove`, "Remove")}</td>` : ""}</tr>`)}</tbody>
</table></div>
${roster.invites.length ? html`<div class="scroll"><table><caption>Open invites</caption><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited</th><th scope="col">Expires</th>${opts.canInvite ? html`<th scope="col">Action</th>` : ""}</tr></thead><tbody>${roster.invites.map((i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.invitedAt)}</td><td>${when(i.expiresAt)}</td>${opts.canInvite ? html`<td>${action(`/dashboard/invites/${i.inviteId}/cancel`, "Withdraw")}</td>` : ""}</tr>`)}</tbody></table></div>` : ""}
${
  opts.canInvite
    ? html`<section aria-labelledby="invite-title"><h2 id="invite-title">Invite someone</h2>
<form method="post" action="/dashboard/members/invites" class="grid">
  ${csrfField(viewer.csrfToken)}
  <label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="254">
  <label for="invite-role">Role</label><select id="invite-role" name="role"><option value="member">member</option><option value="owner">owner</option></select>
  <button type="submit">Create invite link</button>
</form></section>`
    : html`<p class="hint">Owners invite members.</p>`
}`,
  );
}
