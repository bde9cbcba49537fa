#!/usr/bin/env node
// The installed `litsearch` command: runs the TypeScript CLI through tsx.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const cli = fileURLToPath(new URL('../src/app/cli/main.ts', import.meta.url));
const result = spawnSync(process.execPath, ['--import', require.resolve('tsx'), cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
