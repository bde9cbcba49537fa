// Reads the manifest that scripts/provision.sh writes (paths of the Temporal CLI, the OpenSearch launcher, the
// PostgreSQL binaries, Temporal's time-skipping test server and Chromium) and fails clearly when something is not
// provisioned.
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

type ComponentName = "temporal" | "opensearch" | "postgres" | "temporalTestServer" | "chromium";

export interface TemporalCliComponent {
  /** Absolute path of the `temporal` CLI binary. */
  cli: string;
}

export interface OpenSearchComponent {
  /** OpenSearch version the launcher's jars carry, e.g. "2.19.1". */
  version: string;
  /** Absolute path of the node's java: JDK 17, or a JDK 21+ running Lucene's vector API (see jvmArgs and runtime). */
  java: string;
  /** Java class path; may end in a `dir/*` wildcard, which the java launcher expands. */
  classpath: string;
  mainClass: string;
  jvmArgs: string[];
  /** what provision chose the node to run on, e.g. "java 25 (...): Java vector incubator API enabled; ..." */
  runtime?: string;
}

export interface PostgresComponent {
  /** Directory holding initdb, postgres and pg_ctl. */
  binDir: string;
  /** Account that initdb and postgres run as when this process is root (both refuse root). */
  runAsUser: string;
  version: string;
}

/** Temporal's time-skipping test server (Java), for TestWorkflowEnvironment.createTimeSkipping() in tests. */
interface TemporalTestServerComponent {
  /** io.temporal:temporal-test-server version, e.g. "1.38.0". */
  version: string;
  /** Launcher script run as `<executable> <port> [--enable-time-skipping]` (the SDK's existing-path executable). */
  executable: string;
  /** The java the launcher runs. */
  java: string;
}

/** Debian's Chromium, driven headless by the dashboard's browser test (playwright-core, executablePath). */
interface ChromiumComponent {
  executablePath: string;
  version: string;
}

interface ProvisionedComponents {
  temporal: TemporalCliComponent;
  opensearch: OpenSearchComponent;
  postgres: PostgresComponent;
  temporalTestServer: TemporalTestServerComponent;
  chromium: ChromiumComponent;
}

class ComponentNotProvisionedError extends Error {
  constructor(
    readonly component: ComponentName | "manifest",
    detail: string,
    readonly manifestPath: string,
  ) {
    super(
      `${component === "manifest" ? "components manifest" : component} not provisioned: ${detail} (manifest: ` +
        `${manifestPath}). Run npm run provision.`,
    );
    this.name = "ComponentNotProvisionedError";
  }
}

/**
 * One component's entry in `<cacheDir>/components.json` (the cache provision.sh fills; config.cacheDir), checked
 * against the disk.
 */
export function readComponent<N extends ComponentName>(name: N, cacheDir: string): ProvisionedComponents[N] {
  const manifestPath = join(cacheDir, "components.json");
  const manifest = readManifest(manifestPath);
  const parsers: { [K in ComponentName]: () => ProvisionedComponents[K] } = {
    temporal: () => parseTemporal(manifest, manifestPath),
    opensearch: () => parseOpenSearch(manifest, manifestPath),
    postgres: () => parsePostgres(manifest, manifestPath),
    temporalTestServer: () => parseTemporalTestServer(manifest, manifestPath),
    chromium: () => parseChromium(manifest, manifestPath),
  };
  return parsers[name]();
}

type Json = Record<string, unknown>;

function readManifest(manifestPath: string): Json {
  if (!existsSync(manifestPath)) {
    throw new ComponentNotProvisionedError("manifest", "file does not exist", manifestPath);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(manifestPath, "utf8"));
  } catch (error) {
    throw new ComponentNotProvisionedError("manifest", `not valid JSON (${(error as Error).message})`, manifestPath);
  }
  if (!isObject(parsed)) {
    throw new ComponentNotProvisionedError("manifest", "not a JSON object", manifestPath);
  }
  return parsed;
}

function parseTemporal(manifest: Json, manifestPath: string): TemporalCliComponent {
  const cli = requireString(manifest, "temporalCli", "temporal", manifestPath);
  requireExecutable(cli, "temporal", "Temporal CLI", manifestPath);
  return { cli };
}

function parseOpenSearch(manifest: Json, manifestPath: string): OpenSearchComponent {
  const section = requireSection(manifest, "opensearch", manifestPath);
  const java = requireString(section, "java", "opensearch", manifestPath);
  requireExecutable(java, "opensearch", "java for OpenSearch", manifestPath);
  const classpath = requireString(section, "classpath", "opensearch", manifestPath);
  for (const entry of classpath.split(":")) {
    const path = entry.endsWith("/*") ? entry.slice(0, -2) : entry;
    if (!existsSync(path)) {
      throw new ComponentNotProvisionedError("opensearch", `class path entry ${path} is missing`, manifestPath);
    }
  }
  const jvmArgs = section.jvmArgs;
  if (!Array.isArray(jvmArgs) || !jvmArgs.every((arg): arg is string => typeof arg === "string")) {
    throw new ComponentNotProvisionedError("opensearch", "opensearch.jvmArgs is not a list of strings", manifestPath);
  }
  return {
    version: requireString(section, "version", "opensearch", manifestPath),
    java,
    classpath,
    mainClass: requireString(section, "mainClass", "opensearch", manifestPath),
    jvmArgs,
    ...(typeof section.runtime === "string" ? { runtime: section.runtime } : {}),
  };
}

function parsePostgres(manifest: Json, manifestPath: string): PostgresComponent {
  const section = requireSection(manifest, "postgres", manifestPath);
  const binDir = requireString(section, "binDir", "postgres", manifestPath);
  for (const program of ["initdb", "postgres"]) {
    requireExecutable(join(binDir, program), "postgres", `PostgreSQL ${program}`, manifestPath);
  }
  return {
    binDir,
    runAsUser: requireString(section, "runAsUser", "postgres", manifestPath),
    version: requireString(section, "version", "postgres", manifestPath),
  };
}

function parseTemporalTestServer(manifest: Json, manifestPath: string): TemporalTestServerComponent {
  const section = requireSection(manifest, "temporalTestServer", manifestPath);
  const executable = requireString(section, "executable", "temporalTestServer", manifestPath);
  requireExecutable(executable, "temporalTestServer", "time-skipping test server launcher", manifestPath);
  // the launcher execs this java; a JDK removed since provisioning would otherwise surface as a start-up timeout
  const java = requireString(section, "java", "temporalTestServer", manifestPath);
  requireExecutable(java, "temporalTestServer", "java for the time-skipping test server", manifestPath);
  return { version: requireString(section, "version", "temporalTestServer", manifestPath), executable, java };
}

function parseChromium(manifest: Json, manifestPath: string): ChromiumComponent {
  const section = requireSection(manifest, "chromium", manifestPath);
  const executablePath = requireString(section, "executablePath", "chromium", manifestPath);
  requireExecutable(executablePath, "chromium", "Chromium", manifestPath);
  return { executablePath, version: requireString(section, "version", "chromium", manifestPath) };
}

function requireSection(manifest: Json, key: ComponentName, manifestPath: string): Json {
  const section = manifest[key];
  if (!isObject(section)) {
    throw new ComponentNotProvisionedError(key, `no "${key}" entry`, manifestPath);
  }
  return section;
}

function requireString(section: Json, key: string, component: ComponentName, manifestPath: string): string {
  const value = section[key];
  if (typeof value !== "string" || value.length === 0) {
    throw new ComponentNotProvisionedError(component, `no "${key}" string`, manifestPath);
  }
  return value;
}

function requireExecutable(path: string, component: ComponentName, what: string, manifestPath: string): void {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new ComponentNotProvisionedError(component, `${what} ${path} is missing or not executable`, manifestPath);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
