// Starts Temporal's time-skipping test environment on the provisioned Java test server (never a download): fails, with
// what to run, when it is not provisioned.
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { cacheDirFrom } from "../../src/app/config.js";
import { readComponent } from "../../src/infra/components.js";

/**
 * A TestWorkflowEnvironment whose server skips time: timers and `condition` timeouts fire as soon as nothing else is
 * pending while the test waits on a result (or calls env.sleep). Callers own it: `await env.teardown()` stops the
 * server.
 *
 * The server is the launcher scripts/provision-temporal-test-server.sh put in the cache, found through the components
 * manifest; when it is missing this throws ComponentNotProvisionedError (tests fail, they do not skip).
 */
export async function startTimeSkippingEnv(
  cacheDir: string = cacheDirFrom(process.env),
): Promise<TestWorkflowEnvironment> {
  const server = readComponent("temporalTestServer", cacheDir);
  try {
    return await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: "existing-path", path: server.executable } },
    });
  } catch (error) {
    throw new Error(
      `the time-skipping test server ${server.version} (${server.executable}) did not start: ` +
        `${(error as Error).message}. ` +
        ("The SDK gives it 5 s to listen; PROVISION_REVERIFY=1 bash scripts/provision-temporal-test-server.sh " +
          "checks it and prints its start time."),
      { cause: error },
    );
  }
}
