// The account page: the signed-in member's own settings.
import { html, type Html } from "./html.js";
import { type Viewer, csrfField, layout, when } from "./layout.js";

export function accountPage(
  viewer: Viewer,
  sessions: { sessionId: string; startedAt: string; expiresAt: string }[],
  currentSessionId: string,
): Html {
  return layout(
    viewer,
    "account",
    "Sessions",
    html`<p>Where you are signed in. Sessions end on sign-out and by themselves at the time shown; end any you do not recognise.</p>
<div class="scroll"><table>
<thead><tr><th scope="col">Signed in</th><th scope="col">Ends</th><th scope="col">Action</th></tr></thead>
<tbody>${sessions.map(
      (s) =>
        html`<tr><td>${when(s.startedAt)}</td><td>${when(s.expiresAt)}</td><td>${
          s.sessionId === currentSessionId
            ? "this session"
            : html`<form method="post" action="/dashboard/sessions/${s.sessionId}/revoke" class="inline">${csrfField(viewer.csrfToken)}<button type="submit" class="danger">End session</button></form>`
        }</td></tr>`,
    )}</tbody>
</table></div>`,
  );
}
