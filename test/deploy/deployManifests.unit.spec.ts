// deploy/ sets only variables src/app/config.ts reads: every key of the compose file's environments, of the Kubernetes
// containers' env and of the ConfigMaps and Secrets they load whole (envFrom), and the image's ENV lines. A misspelt
// or retired name would otherwise be ignored without a word in production.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES, REPO_ROOT } from "../../src/app/config.js";

const DEPLOY = join(REPO_ROOT, "deploy");
const K8S = join(DEPLOY, "k8s");
const known = new Set<string>(CONFIG_VARIABLES);

type Json = Record<string, any>;

/** Every Kubernetes object in deploy/k8s, by file. */
function k8sObjects(): Array<{ file: string; object: Json }> {
  return readdirSync(K8S)
    .filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml")
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(K8S, file), "utf8")).map((document) => {
        if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((e) => e.message).join("; ")}`);
        return { file, object: document.toJSON() as Json };
      }),
    );
}

/** Containers of a workload (Deployment, Job, StatefulSet, ...), init containers included. */
function containersOf(object: Json): Json[] {
  const pod = object.kind === "CronJob" ? object.spec?.jobTemplate?.spec?.template?.spec : object.spec?.template?.spec;
  return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])] : [];
}

/** The compose file with merge keys (<<) resolved, as docker compose reads it. */
function compose(): Json {
  return parse(readFileSync(join(DEPLOY, "docker-compose.yml"), "utf8"), { merge: true }) as Json;
}

function composeEnvironmentNames(environment: unknown): string[] {
  if (Array.isArray(environment)) return environment.map((entry) => String(entry).split("=")[0]!);
  return environment && typeof environment === "object" ? Object.keys(environment) : [];
}

describe("deploy/", () => {
  it("docker-compose.yml: every environment variable of every service is read by src/app/config.ts", () => {
    const services = compose().services as Record<string, Json>;
    expect(Object.keys(services).sort()).toEqual(["api", "ingest", "worker"]);
    const set = Object.entries(services).flatMap(([name, service]) =>
      composeEnvironmentNames(service.environment).map((variable) => `${name}: ${variable}`),
    );
    expect(set.length).toBeGreaterThan(0);
    expect(set.filter((entry) => !known.has(entry.split(": ")[1]!))).toEqual([]);
    expect(Object.values(services).every((service) => service.env_file === undefined)).toBe(true);
  });

  it("docker-compose.yml: the API runs no worker, the worker runs src/app/worker.ts, both reach the components", () => {
    const { api, worker } = compose().services as Record<string, Json>;
    expect(api!.environment.WORKER_MODE).toBe("separate");
    expect(api!.deploy.replicas).toBeGreaterThanOrEqual(2);
    expect(worker!.command).toEqual(["node", "--import", "tsx", "src/app/worker.ts"]);
    for (const service of [api!, worker!])
      for (const variable of ["DATABASE_URL", "OPENSEARCH_URL", "TEMPORAL_ADDRESS"])
        expect(service.environment[variable], variable).toBeTruthy();
  });

  it("k8s: each variable a container sets, or loads from a ConfigMap or Secret, is read by src/app/config.ts", () => {
    const objects = k8sObjects();
    const byName = new Map(
      objects
        .filter(({ object }) => object.kind === "ConfigMap" || object.kind === "Secret")
        .map(({ object }) => [`${object.kind}/${object.metadata.name}`, object]),
    );
    const set: string[] = [];
    for (const { file, object } of objects) {
      for (const container of containersOf(object)) {
        const where = `${file} ${object.kind}/${object.metadata.name} ${container.name}`;
        for (const entry of container.env ?? []) set.push(`${where}: ${entry.name}`);
        for (const source of container.envFrom ?? []) {
          const ref = source.configMapRef
            ? `ConfigMap/${source.configMapRef.name}`
            : `Secret/${source.secretRef?.name}`;
          const loaded = byName.get(ref);
          expect(loaded, `${where} loads ${ref}, which deploy/k8s does not define`).toBeDefined();
          const keys = Object.keys({ ...loaded!.data, ...loaded!.stringData });
          for (const key of keys)
            set.push(
              `${where} (${ref}${source.prefix ? `, prefix ${source.prefix}` : ""}): ${source.prefix ?? ""}${key}`,
            );
        }
      }
    }
    expect(set.length).toBeGreaterThan(0);
    expect(set.filter((entry) => !known.has(entry.split(": ").pop()!))).toEqual([]);
  });

  it("k8s: an API Deployment and Service with no worker inside, a worker Deployment, the components outside", () => {
    const objects = k8sObjects().map(({ object }) => object);
    const named = (kind: string, name: string) =>
      objects.find((object) => object.kind === kind && object.metadata.name === name);
    const api = named("Deployment", "litsearch-api");
    const worker = named("Deployment", "litsearch-worker");
    expect(api?.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(containersOf(api!)[0]!.env).toContainEqual({ name: "WORKER_MODE", value: "separate" });
    expect(named("Service", "litsearch-api")?.spec.selector).toEqual(api!.spec.selector.matchLabels);
    expect(containersOf(worker!)[0]!.command).toEqual(["node", "--import", "tsx", "src/app/worker.ts"]);
    // PostgreSQL, Temporal and OpenSearch are external services, not workloads of this deployment
    for (const component of ["postgres", "temporal", "opensearch"])
      expect(named("Service", `litsearch-${component}`)?.spec.type).toBe("ExternalName");
    expect(
      objects
        .filter((object) => containersOf(object).length > 0)
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(["litsearch-api", "litsearch-ingest", "litsearch-worker"]);
  });

  it("the image sets only variables src/app/config.ts reads", () => {
    const lines = readFileSync(join(DEPLOY, "Dockerfile"), "utf8")
      .split("\n")
      .filter((line) => /^ENV\s/.test(line));
    const names = lines.flatMap((line) =>
      [...line.replace(/^ENV\s+/, "").matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((m) => m[1]!),
    );
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !known.has(name))).toEqual([]);
  });
});
