// The shell's configurable side on the real service: TRUST_PROXY for the limiter's client address, and the operator
// request cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, sliceDataRoot, type TestService } from '../support/testService.js';
import { rawRequest } from './rawRequest.js';

let svc: TestService;
let now = Date.parse('2031-05-06T08:00:00Z');
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => rawRequest(svc.baseUrl, method, path, headers, body);
const asOperator = (from: string) => ({ Authorization: `Bearer ${svc.adminToken}`, 'X-Forwarded-For': from });
const guessing = (from: string) => ({ Authorization: 'Bearer guess-0123456789abcdef', 'X-Forwarded-For': from });
const nextMinute = () => (now += 61_000);

beforeAll(async () => {
  svc = await startTestService({
    dataRoot: await sliceDataRoot(10),
    clock: () => new Date(now),
    env: { TRUST_PROXY: '1', ADMIN_REQUESTS_PER_MINUTE: '40' },
  });
  const org = await send('POST', '/admin/v1/organizations', asOperator('192.0.2.1'), { name: 'Proxy lab' });
  expect(org.status).toBe(201);
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

describe('TRUST_PROXY=1: the limiter counts the address the proxy saw', () => {
  it('limits each forwarded client on its own; the right token still works from a limited one', async () => {
    nextMinute();
    for (let i = 0; i < 20; i++) expect((await send('GET', '/admin/v1/verify', guessing('203.0.113.7'))).status).toBe(401);
    const refused = await send('GET', '/admin/v1/verify', guessing('203.0.113.7'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(refused.headers['retry-after']).toBeDefined();
    // another client behind the same proxy is not affected
    expect((await send('GET', '/admin/v1/verify', guessing('203.0.113.8'))).status).toBe(401);
    expect((await send('GET', '/admin/v1/verify', asOperator('203.0.113.7'))).status).toBe(200);
  });

  it('takes the hop the trusted proxy appended, not what the client wrote before it', async () => {
    nextMinute();
    for (let i = 0; i < 20; i++) {
      expect((await send('GET', '/admin/v1/verify', guessing(`10.9.8.${i}, 203.0.113.50`))).status).toBe(401);
    }
    expect((await send('GET', '/admin/v1/verify', guessing('10.9.8.99, 203.0.113.50'))).status).toBe(429);
  });

  it('caps all operator requests per address (ADMIN_REQUESTS_PER_MINUTE), the right token included', async () => {
    nextMinute();
    for (let i = 0; i < 40; i++) expect((await send('GET', '/admin/v1/verify', asOperator('203.0.113.90'))).status).toBe(200);
    const capped = await send('GET', '/admin/v1/verify', asOperator('203.0.113.90'));
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({ error: expect.any(String) });
    expect((await send('GET', '/admin/v1/verify', asOperator('203.0.113.91'))).status).toBe(200);
  });
});
