// Every request body the OpenAPI document describes carries an example, and every example of the API (API key and
// operator token) succeeds as sent against the running service: read from the served /openapi.json, run in an order
// that puts a call before the examples needing it (x-queryId-from, x-after, the ids a path names).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, operatorSteps, startTestService, type TestService } from '../support/testService.js';

type Json = Record<string, any>;

interface Example {
  summary?: string;
  value: unknown;
  'x-queryId-from'?: string;
  'x-after'?: string[];
}

interface Task {
  operationId: string;
  exampleName: string;
  method: string;
  path: string;
  access: 'apiKey' | 'operator' | 'dashboard';
  contentType: string;
  example: Example;
  parameters: Json[];
  accept: string;
}

/** The operations that end what later calls on the same organization rely on: run after everything else. */
const LAST = new Set(['suspendOrganization']);
/** Path parameters naming something an example creates: the operation whose answer's `id` fills it. */
const CREATED_BY: Record<string, string> = { orgId: 'createOrganization', keyId: 'createKey' };

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let document: Json;
let liveKey: string;

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  const ops = operatorSteps(call, svc.adminToken);
  const org = await ops.newOrg({ name: 'Examples lab' }, '20.00');
  liveKey = (await ops.newKey(org.id, { mode: 'live' })).key;
  document = (await call('GET', '/openapi.json')).body;
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

function accessOf(security: Json[] | undefined): Task['access'] {
  const schemes = (security ?? document.security).flatMap((s: Json) => Object.keys(s));
  if (schemes.includes('BearerAuth')) return 'apiKey';
  if (schemes.length > 0 && schemes.every((s: string) => s === 'OperatorBearer')) return 'operator';
  return 'dashboard';
}

/** Every (operation, example) of the document, and the operations whose body has no example. */
function examplesOfDocument(): { tasks: Task[]; missing: string[] } {
  const tasks: Task[] = [];
  const missing: string[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content as Record<string, Json> | undefined;
      if (!content) continue;
      const contentType = content['application/json'] ? 'application/json' : Object.keys(content)[0]!;
      const examples = content[contentType]!.examples as Record<string, Example> | undefined;
      if (!examples || Object.keys(examples).length === 0) {
        missing.push(`${method.toUpperCase()} ${path} (${op.operationId})`);
        continue;
      }
      const success = Object.entries(op.responses as Record<string, Json>).find(([status]) => status.startsWith('2'))?.[1];
      const accept = Object.keys(success?.content ?? { 'application/json': {} }).join(', ');
      for (const [exampleName, example] of Object.entries(examples)) {
        tasks.push({ operationId: op.operationId, exampleName, method: method.toUpperCase(), path, access: accessOf(op.security), contentType, example, parameters: op.parameters ?? [], accept });
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
    const operations = [...(task.example['x-after'] ?? [])];
    for (const [, name] of task.path.matchAll(/\{(\w+)\}/g)) if (CREATED_BY[name!]) operations.push(CREATED_BY[name!]!);
    const from = task.example['x-queryId-from'];
    const named = tasks.filter((t) => t !== task && (operations.includes(t.operationId) || labelOf(t) === from));
    if (from && !tasks.some((t) => labelOf(t) === from)) throw new Error(`${labelOf(task)}: x-queryId-from names ${from}, which is no example of the document`);
    return named;
  };
  const out: Task[] = [];
  const remaining = [...tasks.filter((t) => !LAST.has(t.operationId)), ...tasks.filter((t) => LAST.has(t.operationId))];
  while (remaining.length > 0) {
    const index = remaining.findIndex((task) => needs(task).every((needed) => out.includes(needed)));
    if (index < 0) throw new Error(`examples wait on each other: ${remaining.map(labelOf).join(', ')}`);
    out.push(...remaining.splice(index, 1));
  }
  return out;
}

describe('request body examples in the OpenAPI document', () => {
  it('every request body carries at least one example', () => {
    const { tasks, missing } = examplesOfDocument();
    expect(missing).toEqual([]);
    expect(tasks.length).toBeGreaterThan(15);
  });

  it('every example of the API succeeds as sent, each after the call it needs', async () => {
    const answers = new Map<string, Json>();
    const created = new Map<string, string>();
    const failures: string[] = [];
    const sent: string[] = [];
    for (const task of ordered(examplesOfDocument().tasks)) {
      if (task.access === 'dashboard') continue;
      const label = `${task.operationId}/${task.exampleName}`;
      const path = task.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const documented = task.parameters.find((p) => p.in === 'path' && p.name === name)?.example;
        const value = documented ?? created.get(name);
        if (value === undefined) throw new Error(`${label}: no example for path parameter ${name} and nothing created it`);
        return encodeURIComponent(value);
      });
      const body = structuredClone(task.example.value) as Json;
      const from = task.example['x-queryId-from'];
      if (from) {
        const earlier = answers.get(from);
        if (!earlier?.queryId) throw new Error(`${label}: ${from} gave no queryId (${JSON.stringify(earlier)})`);
        body.queryId = earlier.queryId;
      }
      const credential = task.access === 'apiKey' ? liveKey : svc.adminToken;
      const res = await call(task.method, path, { body, headers: { Authorization: `Bearer ${credential}`, Accept: task.accept } });
      sent.push(label);
      if (res.status < 200 || res.status > 299) {
        failures.push(`${label}: ${task.method} ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
        continue;
      }
      const json = typeof res.body === 'object' && res.body !== null ? (res.body as Json) : {};
      answers.set(label, json);
      for (const [name, operationId] of Object.entries(CREATED_BY)) if (task.operationId === operationId && typeof json.id === 'string') created.set(name, json.id);
    }
    expect(failures).toEqual([]);
    // the examples that need an earlier call ran, and read the state they asked for
    expect(sent).toEqual(expect.arrayContaining(['searchPreview/preview', 'searchUnlock/unlockAll', 'searchAssisted/vague', 'searchAssisted/answer', 'createOrganization/organization', 'issueRefund/refund']));
    expect(sent.indexOf('searchUnlock/unlockAll')).toBeGreaterThan(sent.indexOf('searchPreview/preview'));
    expect(answers.get('searchAssisted/vague')?.status).toBe('clarification_needed');
    expect(answers.get('searchUnlock/unlockAll')?.results.every((r: { locked: boolean }) => !r.locked)).toBe(true);
  }, 600_000);
});
