// Lets a test get the address of a real component started by globalSetup, failing loudly when that component was not
// started.
import { inject } from "vitest";
import { componentOfKey, type ComponentAddressKey } from "./componentSelection.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** host:port of the Temporal dev server, when started. */
    temporalAddress?: string;
    temporalNamespace?: string;
    /** postgres://... of the PostgreSQL server, when started. */
    postgresUrl?: string;
    /** http://127.0.0.1:port of the OpenSearch node, when started. */
    opensearchUrl?: string;
    /** TEST_COMPONENTS as the run saw it ('' when unset: all components). */
    testComponents: string;
  }
}

export function requireComponent(key: ComponentAddressKey): string {
  const value = inject(key);
  if (value === undefined || value === "") {
    const selection = inject("testComponents");
    throw new Error(
      `component ${componentOfKey(key)} not started; TEST_COMPONENTS=${selection === "" ? "(unset)" : selection}. ` +
        `Include ${componentOfKey(key)} in TEST_COMPONENTS, or unset it to start all components. ` +
        "The unit tier run alone starts none: a file that needs a component is named *.int.spec.ts or *.e2e.spec.ts.",
    );
  }
  return value;
}
