// The operator CLI against its own embedded store (no server running): the same operations as the admin API.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/config.js';

function cli(dataDir: string, ...args: string[]) {
  const res = spawnSync(process.execPath, ['bin/litsearch.mjs', ...args], { cwd: REPO_ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, encoding: 'utf8' });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe('litsearch CLI', () => {
  it('creates an organization, credits it, keys it, shows the ledger as CSV, replays and verifies', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'litsearch-cli-'));
    const org = cli(dataDir, 'org', 'create', '--name', 'CLI lab', '--daily', '7');
    expect(org.code).toBe(0);
    const { id, limits } = JSON.parse(org.out) as { id: string; limits: { daily: number } };
    expect(limits.daily).toBe(7);
    expect(JSON.parse(cli(dataDir, 'credits', 'add', id, '12.50').out)).toEqual({ balance: '12.500000' });
    const key = JSON.parse(cli(dataDir, 'key', 'create', id, '--mode', 'live', '--collections', 'scifact').out) as { key: string };
    expect(key.key).toMatch(/^sk_live_/);
    const csv = cli(dataDir, 'ledger', id, '--csv').out.trim().split('\n');
    expect(csv[0]).toBe('time,type,amount,balance_after,key_id,query_id,reference');
    expect(csv[1]).toMatch(/,credit,12\.500000,12\.500000,,,operator credit$/);
    const bad = cli(dataDir, 'credits', 'add', id, 'lots');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/VALIDATION_ERROR/);
    const replay = cli(dataDir, 'replay');
    expect(replay.code).toBe(0);
    expect(replay.out).toMatch(/equal\s+balances/);
    expect(cli(dataDir, 'verify').code).toBe(0);
  }, 120_000);
});
