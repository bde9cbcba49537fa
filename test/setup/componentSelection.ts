// Which real components a test run starts (TEST_COMPONENTS) and the names under which globalSetup provides their
// addresses.
export const TEST_COMPONENT_NAMES = ["temporal", "postgres", "opensearch"] as const;
export type TestComponentName = (typeof TEST_COMPONENT_NAMES)[number];

/** The vitest project (vitest.config.ts) of the *.unit.spec.ts files: run alone, it starts no component. */
export const UNIT_PROJECT = "unit";

/** The provided key that carries each component's address. */
export const PROVIDED_KEY_OF = {
  temporal: "temporalAddress",
  postgres: "postgresUrl",
  opensearch: "opensearchUrl",
} as const satisfies Record<TestComponentName, string>;

export type ComponentAddressKey = (typeof PROVIDED_KEY_OF)[TestComponentName];

/**
 * Parses a comma list such as "postgres,temporal"; unset or blank means all of them, "none" means none (unit tests
 * only).
 */
export function parseTestComponents(value: string | undefined): TestComponentName[] {
  if (value === undefined || value.trim() === "") return [...TEST_COMPONENT_NAMES];
  if (value.trim().toLowerCase() === "none") return [];
  const names = value
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
  const unknown = names.filter((name) => !(TEST_COMPONENT_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `TEST_COMPONENTS has unknown component(s) ${unknown.join(", ")}; known: ${TEST_COMPONENT_NAMES.join(", ")}`,
    );
  }
  return TEST_COMPONENT_NAMES.filter((name) => names.includes(name));
}

export function componentOfKey(key: ComponentAddressKey): TestComponentName {
  const name = TEST_COMPONENT_NAMES.find((candidate) => PROVIDED_KEY_OF[candidate] === key);
  if (name === undefined) throw new Error(`no component provides ${key}`);
  return name;
}
