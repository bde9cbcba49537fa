// The keys page: the organization's keys, their scope and caps, and the forms that create, cap and revoke them.
import { html, type Html } from "./html.js";
import type { KeyRow } from "../../usecases/dashboard/consoleData.js";
import {
  type FormInput,
  type Viewer,
  chosen,
  credits,
  csrfField,
  keyLabel,
  layout,
  notice,
  tableHead,
  typed,
  when,
} from "./layout.js";

const scopeOf = (k: KeyRow) => (k.collections === null ? "whole organization" : k.collections.join(", "));

/** An amount in credits, as the cap fields take it: up to 12 digits and 6 decimals. */
const CREDITS_PATTERN = "\\d{1,12}(\\.\\d{1,6})?";

/** The form that sets or clears a key's spending cap. */
function capForm(viewer: Viewer, actions: string, k: KeyRow): Html {
  const cap = k.spendingCapMicros === null ? "" : credits(k.spendingCapMicros);
  return html`<form method="post" action="${actions}/${k.id}/cap" class="inline">${csrfField(viewer.csrfToken)}
<label for="cap-${k.id}" class="sr-only">Spending cap for ${k.prefix}</label><input id="cap-${k.id}" name="spendingCap"
 inputmode="decimal" placeholder="no cap" size="8" value="${cap}" pattern="${CREDITS_PATTERN}">
<button type="submit">Set cap</button></form>`;
}

/** The form that revokes a key, after the browser asks to confirm. */
const revokeForm = (viewer: Viewer, actions: string, k: KeyRow): Html =>
  html`<form method="post" action="${actions}/${k.id}/revoke" class="inline"
 data-confirm="Revoke ${k.prefix}…? Requests with it will be refused at once.">${csrfField(viewer.csrfToken)}
<button type="submit" class="danger">Revoke</button></form>`;

/** A key just created, shown this once, with a first search in each client that has it written in. */
export type CreatedKey = { id: string; key: string; snippets?: { label: string; text: string }[] };

interface KeysOptions {
  created?: CreatedKey;
  canSetCaps: boolean;
  error?: string;
  /** the refused create form's fields, shown again */
  input?: FormInput;
}

const CAP_HINT = "A key past its cap is refused with 429 API_KEY_BUDGET_EXCEEDED.";

export function keysPage(viewer: Viewer, keys: KeyRow[], opts: KeysOptions): Html {
  return layout(viewer, "keys", "API Keys", keysSections(viewer, keys, { ...opts, actions: "/dashboard/keys" }));
}

/**
 * The new key (shown once), the form that creates one and the table of keys with their cap and revoke forms, which
 * post under `actions` (the member's /dashboard/keys, or an organization's keys on the operator's page).
 */
export function keysSections(viewer: Viewer, keys: KeyRow[], opts: KeysOptions & { actions: string }): Html {
  const me = viewer.principal.kind === "member" ? viewer.principal : undefined;
  const operator = viewer.principal.kind === "operator";
  const mayRevoke = (k: KeyRow) =>
    !k.revoked && (opts.canSetCaps || (me !== undefined && k.createdByMemberId === me.memberId));
  const rows = keys.map(
    (k) => html`<tr data-key-id="${k.id}"${k.revoked ? html` class="revoked"` : ""}>
  <td data-label="Key">${keyLabel(k)}<br><small><code class="id">${k.id}</code></small></td>
  <td data-label="Mode">${k.mode === "test" ? "sandbox (sk_test_)" : "live"}</td>
  <td data-label="Scope">${scopeOf(k)}</td>
  <td class="num" data-label="Spent">${credits(k.spentMicros)}</td>
  <td class="num" data-label="Cap">${k.spendingCapMicros === null ? "none" : credits(k.spendingCapMicros)}</td>
  <td data-label="Created">${when(k.createdAt)}${k.createdBy ? html`<br><small>by ${k.createdBy}</small>` : ""}</td>
  <td data-label="Last used">${when(k.lastUsedAt)}</td>
  <td data-label="Status">${k.revoked ? "revoked" : "active"}</td>
  <td class="actions">${
    k.revoked
      ? ""
      : html`${opts.canSetCaps ? capForm(viewer, opts.actions, k) : ""}${
          mayRevoke(k) ? revokeForm(viewer, opts.actions, k) : ""
        }`
  }</td>
</tr>`,
  );
  const mode = typed(opts.input, "mode", "live");
  return html`${opts.error ? notice("error", opts.error) : ""}
${
  opts.created
    ? html`<section class="created" aria-labelledby="created-title">
  <h2 id="created-title">New key</h2>
  <p>Copy it now: it is shown only this once (only its hash is stored).</p>
  <p class="secret"><code id="new-key">${opts.created.key}</code>
    <button type="button" data-copy="new-key" aria-describedby="copy-status">Copy</button>
    <span id="copy-status" role="status"></span></p>
  <p id="next-step">Next: <a href="/dashboard/playground">try a search with it in the Playground</a> (a preview is
  free; you pick the rows to unlock and see their cost first), or copy a first search with this key in it:</p>
  ${(opts.created.snippets ?? []).map(
    (s, i) => html`<details${i === 0 ? html` open` : ""}><summary>${s.label}</summary>
<pre id="new-key-snippet-${i}"><code>${s.text}</code></pre>
<button type="button" data-copy="new-key-snippet-${i}" aria-label="Copy the ${s.label} snippet">Copy</button>
</details>`,
  )}
</section>`
    : ""
}
<section aria-labelledby="create-title">
<h2 id="create-title">Create a key</h2>
<form method="post" action="${opts.actions}" class="grid">
  ${csrfField(viewer.csrfToken)}
  <fieldset><legend>Mode</legend>
    <label><input type="radio" name="mode" value="live"${chosen(mode !== "test", "checked")}> live (real content, spends
 credits)</label>
    <label><input type="radio" name="mode" value="test"${chosen(mode === "test", "checked")}> sandbox (synthetic
 results, free)</label>
  </fieldset>
  <label for="key-name">Name <small>(what you will call it: "CI smoke tests", "Rosalind's notebook")</small></label>
  <input id="key-name" name="name" maxlength="100" autocomplete="off" value="${typed(opts.input, "name")}">
  <label for="collections">Collections <small>(comma-separated; empty: the whole organization)</small></label>
  <input id="collections" name="collections" maxlength="2000" placeholder="scifact, biomedical"
   value="${typed(opts.input, "collections")}">
  ${
    opts.canSetCaps
      ? html`<label for="spendingCap">Spending cap in credits <small>(empty: none)</small></label>
  <input id="spendingCap" name="spendingCap" inputmode="decimal" pattern="${CREDITS_PATTERN}"
   value="${typed(opts.input, "spendingCap")}">`
      : ""
  }
  <button type="submit">Create key</button>
</form>
</section>
<section aria-labelledby="keys-title">
<h2 id="keys-title">Keys</h2>
<div class="scroll" tabindex="0"><table id="keys-table" class="stack-narrow">
${tableHead(["Key", "Mode", "Scope", "Spent", "Cap", "Created", "Last used", "Status", "Actions"])}
<tbody>${rows.length ? rows : html`<tr><td colspan="9">No keys yet.</td></tr>`}</tbody>
</table></div>
<p class="hint">"Last used" is the last search, unlock, tool call or catalogue answer recorded for the key.
${opts.canSetCaps ? CAP_HINT : "Owners set spending caps and revoke keys other members created."}${
    operator ? " Keys you create or change here are recorded with the operator as actor." : ""
  }</p>
</section>`;
}
