// Every request body the OpenAPI document describes carries an example, and every example succeeds as sent against
// the running service: the API's (API key, operator token) and the dashboard's forms (sent as a script does, with the
// session cookie and CSRF token its sign-in hands out). Read from the served /openapi.json, run in an order that puts
// a call before the examples needing it (x-queryId-from, x-after, the ids a path names, the sign-in a session needs),
// and the ones that end something (a key, a member, an invite, a session) last.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";
import { dashboardClient, type DashboardClient } from "../dashboard/dashboardClient.js";

type Json = Record<string, any>;

interface Example {
  summary?: string;
  value: unknown;
  "x-queryId-from"?: string;
  "x-after"?: string[];
}

interface Task {
  operationId: string;
  exampleName: string;
  method: string;
  path: string;
  access: "apiKey" | "operator" | "dashboard";
  /** dashboard forms: whose session sends it (none: a sign-in form) */
  session?: "member" | "operator";
  contentType: string;
  example: Example;
  parameters: Json[];
  accept: string;
}

/** The operations that end what later calls rely on: after everything else, in this order (sign-out last of all). */
const LAST = [
  "dashboardDeleteAlert",
  "dashboardDeleteWebhook",
  "dashboardRevokeKey",
  "dashboardOperatorRevokeKey",
  "dashboardCancelInvite",
  "dashboardRemoveMember",
  "dashboardRevokeSession",
  "suspendOrganization",
  "dashboardLogout",
];

/**
 * The operation whose example makes what a path parameter names (its answer, or the page it leads to, gives the id).
 */
function creatorOf(path: string, name: string): string | undefined {
  if (name === "orgId") return "createOrganization";
  if (name === "alertId") return "dashboardCreateAlert";
  if (name === "endpointId") return "dashboardCreateWebhook";
  if (name === "keyId")
    return path.startsWith("/dashboard/operator/")
      ? "dashboardOperatorCreateKey"
      : path.startsWith("/dashboard/")
        ? "dashboardCreateKey"
        : "createKey";
  // the operator's invite link (its last segment); the owner's open invite; the member's other session
  return { token: "inviteMember", inviteId: "dashboardInvite", sessionId: "dashboardLogin" }[name];
}

/** Dashboard sign-ins: their answer's csrfToken goes with every later form of that session. */
const SIGN_INS = new Set(["dashboardAcceptInvite", "dashboardLogin", "dashboardOperatorLogin"]);
/** The one secret an example cannot hold: the operator token (the example's summary says to replace it). */
const SECRETS: Record<string, (body: Json) => void> = {
  "dashboardOperatorLogin/login": (body) => (body.token = svc.adminToken),
};

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let document: Json;
let liveKey: string;

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  const ops = operatorSteps(call, svc.adminToken);
  const org = await ops.newOrg({ name: "Examples lab" }, "20.00");
  liveKey = (await ops.newKey(org.id, { mode: "live" })).key;
  document = (await call("GET", "/openapi.json")).body;
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

function accessOf(security: Json[] | undefined): Task["access"] {
  const schemes = (security ?? document.security).flatMap((s: Json) => Object.keys(s));
  if (schemes.includes("BearerAuth")) return "apiKey";
  if (schemes.length > 0 && schemes.every((s: string) => s === "OperatorBearer")) return "operator";
  return "dashboard";
}

/** Every (operation, example) of the document, and the operations whose body has no example. */
function examplesOfDocument(): { tasks: Task[]; missing: string[] } {
  const tasks: Task[] = [];
  const missing: string[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content as Record<string, Json> | undefined;
      if (!content) continue;
      const contentType = content["application/json"] ? "application/json" : Object.keys(content)[0]!;
      const examples = content[contentType]!.examples as Record<string, Example> | undefined;
      if (!examples || Object.keys(examples).length === 0) {
        missing.push(`${method.toUpperCase()} ${path} (${op.operationId})`);
        continue;
      }
      const success = Object.entries(op.responses as Record<string, Json>).find(([status]) =>
        status.startsWith("2"),
      )?.[1];
      const accept = Object.keys(success?.content ?? { "application/json": {} }).join(", ");
      for (const [exampleName, example] of Object.entries(examples)) {
        const access = accessOf(op.security);
        const session =
          access !== "dashboard" || (op.security as Json[]).length === 0
            ? undefined
            : path.startsWith("/dashboard/operator/")
              ? "operator"
              : "member";
        tasks.push({
          operationId: op.operationId,
          exampleName,
          method: method.toUpperCase(),
          path,
          access,
          session,
          contentType,
          example,
          parameters: op.parameters ?? [],
          accept,
        });
      }
    }
  }
  return { tasks, missing };
}

/** Document order, moved so each example runs after what it needs; LAST ones at the end. */
function ordered(tasks: Task[]): Task[] {
  const labelOf = (task: Task) => `${task.operationId}/${task.exampleName}`;
  // every example of an operation named in x-after or a path id; the one example x-queryId-from names
  const needs = (task: Task): Task[] => {
    const operations = [...(task.example["x-after"] ?? [])];
    for (const [, name] of task.path.matchAll(/\{(\w+)\}/g))
      if (creatorOf(task.path, name!)) operations.push(creatorOf(task.path, name!)!);
    if (task.session) operations.push(task.session === "member" ? "dashboardLogin" : "dashboardOperatorLogin");
    const from = task.example["x-queryId-from"];
    const named = tasks.filter((t) => t !== task && (operations.includes(t.operationId) || labelOf(t) === from));
    if (from && !tasks.some((t) => labelOf(t) === from))
      throw new Error(`${labelOf(task)}: x-queryId-from names ${from}, which is no example of the document`);
    return named;
  };
  const out: Task[] = [];
  const last = (t: Task) => LAST.indexOf(t.operationId);
  const remaining = [
    ...tasks.filter((t) => last(t) < 0),
    ...tasks.filter((t) => last(t) >= 0).sort((a, b) => last(a) - last(b)),
  ];
  while (remaining.length > 0) {
    const index = remaining.findIndex((task) => needs(task).every((needed) => out.includes(needed)));
    if (index < 0) throw new Error(`examples wait on each other: ${remaining.map(labelOf).join(", ")}`);
    out.push(...remaining.splice(index, 1));
  }
  return out;
}

describe("request body examples in the OpenAPI document", () => {
  it("every request body carries at least one example", () => {
    const { tasks, missing } = examplesOfDocument();
    expect(missing).toEqual([]);
    expect(tasks.length).toBeGreaterThan(15);
  });

  it("every example succeeds as sent (API, operator API, dashboard forms), each after the call it needs", async () => {
    const answers = new Map<string, Json>();
    const failures: string[] = [];
    const sent: string[] = [];
    // the dashboard as a script meets it: a cookie jar per signed-in person, the CSRF token of its sign-in
    const clients: Record<"member" | "operator", DashboardClient> = {
      member: dashboardClient(svc.baseUrl),
      operator: dashboardClient(svc.baseUrl),
    };
    const csrf: Partial<Record<"member" | "operator", string>> = {};
    const answerOf = (operationId: string) => [...answers].find(([label]) => label.startsWith(`${operationId}/`))?.[1];
    /** The first id a signed-in page of the member offers in a form's action (`/dashboard/<before>/<id>/<after>`). */
    const idOnPage = async (page: string, before: string, after: string) => {
      const res = await clients.member.send("GET", page);
      const id = new RegExp(`action="/dashboard/${before}/([^/"]+)/${after}"`).exec(res.text)?.[1];
      if (!id) throw new Error(`no ${before}/…/${after} form on ${page} (${res.status})`);
      return id;
    };
    /**
     * A member to remove: the operator invites one more person, who joins (their own session), as the examples' owner
     * did.
     */
    const anotherMember = async (orgId: string) => {
      const invite = await call("POST", `/admin/v1/organizations/${orgId}/invites`, {
        admin: svc.adminToken,
        body: { email: "departing@riverside.example.org", role: "member" },
      });
      const joined = await dashboardClient(svc.baseUrl).send("POST", new URL(invite.body.inviteUrl).pathname, {
        json: { password: "another long password" },
      });
      if (joined.status !== 201) throw new Error(`the second member did not join: ${joined.status} ${joined.text}`);
      return idOnPage("/dashboard/members", "members", "remove");
    };
    const pathValue = async (task: Task, name: string): Promise<string> => {
      const documented = task.parameters.find((p) => p.in === "path" && p.name === name)?.example;
      if (documented !== undefined) return documented;
      const creator = creatorOf(task.path, name);
      const made = creator ? answerOf(creator) : undefined;
      if (name === "token" && made?.inviteUrl) return new URL(made.inviteUrl).pathname.split("/").pop()!;
      if (name === "inviteId" && made) return idOnPage("/dashboard/members", "invites", "cancel");
      // the session of the invite link
      if (name === "sessionId" && made) return idOnPage("/dashboard/account", "sessions", "revoke");
      if (name === "memberId") return anotherMember(answerOf("createOrganization")!.id);
      if (typeof made?.id === "string") return made.id;
      // a recent query's page: the preview the example's body names
      const from = task.example["x-queryId-from"];
      if (name === "queryId" && from && typeof answers.get(from)?.queryId === "string")
        return answers.get(from)!.queryId;
      throw new Error(`no example for path parameter ${name} and ${creator ?? "nothing"} made none`);
    };

    const tasks = ordered(examplesOfDocument().tasks);
    for (const task of tasks) {
      const label = `${task.operationId}/${task.exampleName}`;
      let path = task.path;
      try {
        for (const [placeholder, name] of task.path.matchAll(/\{(\w+)\}/g))
          path = path.replace(placeholder, encodeURIComponent(await pathValue(task, name!)));
      } catch (err) {
        // what the path names was never made (its example failed): this one is reported unsent, the run goes on
        failures.push(`${label}: not sent: ${(err as Error).message}`);
        continue;
      }
      const body = structuredClone(task.example.value) as Json;
      const from = task.example["x-queryId-from"];
      if (from) {
        const earlier = answers.get(from);
        if (!earlier?.queryId) throw new Error(`${label}: ${from} gave no queryId (${JSON.stringify(earlier)})`);
        body.queryId = earlier.queryId;
      }
      SECRETS[label]?.(body);
      // the key that pays a dashboard alert's runs: the one the member's key example created
      if (task.operationId === "dashboardCreateAlert") body.key = answerOf("dashboardCreateKey")?.id;
      // the playground previews as that key and unlocks the preview's first two rows, confirming the quote's cost
      // (from a recent query's page as well, where they are already bought: a quote of nothing, confirmed)
      const unlocking = ["dashboardPlaygroundUnlock", "dashboardQueryUnlock"].includes(task.operationId);
      if (task.operationId.startsWith("dashboardPlayground") || unlocking)
        body.key = answerOf("dashboardCreateKey")?.id;
      if (unlocking) {
        [body.row_1, body.row_2] = (answers.get(from!)?.resultIds as string[] | undefined) ?? [];
        if (body.confirm !== undefined) body.confirm = answers.get(`${task.operationId}/quote`)?.cost;
      }
      let status: number;
      let answer: unknown;
      if (task.access === "dashboard") {
        // a sign-in form goes out on the jar of the person it signs in; a form of a session carries that session's CSRF
        // token
        const who = task.session ?? (task.operationId === "dashboardOperatorLogin" ? "operator" : "member");
        const res = await clients[who].send(task.method, path, {
          json: body,
          headers: task.session ? { "X-CSRF-Token": csrf[who] ?? "" } : {},
        });
        ({ status } = res);
        answer = res.json ?? res.text;
        if (SIGN_INS.has(task.operationId) && res.json?.csrfToken) csrf[who] = res.json.csrfToken;
      } else {
        const credential = task.access === "apiKey" ? liveKey : svc.adminToken;
        ({ status, body: answer } = await call(task.method, path, {
          body,
          headers: { Authorization: `Bearer ${credential}`, Accept: task.accept },
        }));
      }
      sent.push(label);
      // a browser's form gets a 303 to the next page: a success like 2xx
      if ((status < 200 || status > 299) && status !== 303) {
        failures.push(
          `${label}: ${task.method} ${path} ${JSON.stringify(body)} -> ${status} ` +
            `${JSON.stringify(answer).slice(0, 400)}`,
        );
        continue;
      }
      answers.set(label, typeof answer === "object" && answer !== null ? (answer as Json) : {});
    }
    expect(failures).toEqual([]);
    // every example of the document was sent, the dashboard's forms included
    expect(sent.sort()).toEqual(tasks.map((t) => `${t.operationId}/${t.exampleName}`).sort());
    expect(tasks.filter((t) => t.access === "dashboard").length).toBeGreaterThan(15);
    // the examples that need an earlier call ran, and read the state they asked for
    expect(sent).toEqual(
      expect.arrayContaining([
        "searchPreview/preview",
        "searchUnlock/unlockAll",
        "searchAssisted/vague",
        "searchAssisted/answer",
        "createOrganization/organization",
        "issueRefund/refund",
      ]),
    );
    const at = (label: string) => tasks.findIndex((t) => `${t.operationId}/${t.exampleName}` === label);
    expect(at("searchUnlock/unlockAll")).toBeGreaterThan(at("searchPreview/preview"));
    expect(at("dashboardLogout/confirm")).toBe(tasks.length - 1);
    expect(answers.get("searchAssisted/vague")?.status).toBe("clarification_needed");
    expect(answers.get("searchUnlock/unlockAll")?.results.every((r: { locked: boolean }) => !r.locked)).toBe(true);
    // the dashboard forms acted as the pages say: the owner's key capped then revoked, the member gone, signed out
    expect(answers.get("dashboardSetCap/cap")).toMatchObject({ spendingCap: "15.000000" });
    expect(answers.get("dashboardRevokeKey/confirm")).toMatchObject({ revoked: true });
    expect(answers.get("dashboardRemoveMember/confirm")).toMatchObject({ removed: true });
    expect(answers.get("dashboardLogout/confirm")).toEqual({ signedOut: true });
    expect((await clients.member.send("GET", "/dashboard")).status).toBe(401);
  }, 600_000);
});
