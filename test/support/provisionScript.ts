// Runs one of the provisioning scripts against a given cache directory and returns its exit code and output.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export async function runProvisionScript(
  script: string,
  cache: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("bash", [script, ...args], {
      env: { ...process.env, ...env, LITSEARCH_CACHE: cache },
      timeout: timeoutMs,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? -1, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}
