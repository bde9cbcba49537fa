// The account page: the signed-in member's own settings.
import { html, type Html } from "./html.js";
import { type Viewer, dangerButton, layout, tableHead, when } from "./layout.js";

export function accountPage(
  viewer: Viewer,
  sessions: { sessionId: string; startedAt: string; expiresAt: string }[],
  currentSessionId: string,
): Html {
  return layout(
    viewer,
    "account",
    "Sessions",
    html`<p>Where you are signed in. Sessions end on sign-out and by themselves at the time shown;
end any you do not recognise.</p>
<div class="scroll" tabindex="0"><table>
${tableHead(["Signed in", "Ends", "Action"])}
<tbody>${sessions.map(
      (s) =>
        html`<tr><td>${when(s.startedAt)}</td><td>${when(s.expiresAt)}</td><td>${
          s.sessionId === currentSessionId
            ? "this session"
            : dangerButton(viewer, `/dashboard/sessions/${s.sessionId}/revoke`, "End session")
        }</td></tr>`,
    )}</tbody>
</table></div>`,
  );
}
