// CONFIG_VARIABLES is exactly what loadConfig reads (so deploy/ can be checked against it), and configEnvironment hands
// a configuration to another process without loss (the scaled launcher's children read what it decided).
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES, configEnvironment, loadConfig } from "../../src/app/config.js";

const BASE = { DATA_DIR: "/nonexistent/litsearch", ADMIN_TOKEN: "config-test-token-0123456789" };

/** The names loadConfig looks up in `env`, present or not. */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === "string") read.add(name);
      return target[name as string];
    },
  });
  loadConfig(recording);
  return read;
}

describe("CONFIG_VARIABLES", () => {
  it("names every variable loadConfig reads and no other", () => {
    const everySet = {
      ...BASE,
      TOOL_PRICES: "works/lookup=0.001",
      TOOL_UPSTREAMS: "[]",
      CORS_ORIGINS: "*",
      FAULT_AFTER_CHARGE_DELAY_MS: "1",
      LLM_BASE_URL: "https://llm.example/v1",
      LLM_MODEL: "m",
      LLM_API_KEY: "k",
      TLS: "1",
      PUBLIC_URL: "https://search.example",
    };
    expect([...namesRead(BASE)].sort()).toEqual([...CONFIG_VARIABLES].sort());
    expect([...namesRead(everySet)].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

describe("configEnvironment", () => {
  it("is read back by loadConfig as the same configuration, defaults and non-defaults alike", () => {
    const plain = loadConfig(BASE);
    const scaled = loadConfig({
      ...BASE,
      PORT: "9090",
      HOST: "0.0.0.0",
      DATABASE_URL: "postgres://svc@db:5432/litsearch",
      OPENSEARCH_URL: "http://search-1:9200, http://search-2:9200/",
      OPENSEARCH_SHARDS: "2",
      OPENSEARCH_REPLICAS: "1",
      TEMPORAL_ADDRESS: "temporal:7233",
      TEMPORAL_NAMESPACE: "litsearch",
      WORKER_MODE: "separate",
      LITSEARCH_CACHE: "/cache",
      INGEST_DEMO: "0",
      EMBEDDING_WORKERS: "3",
      LOG_LEVEL: "warn",
      FAULT_AFTER_CHARGE_DELAY_MS: "250",
      TRUST_PROXY: "1",
      CORS_ORIGINS: "https://app.example.org,http://localhost:5173",
      ADMIN_FAILED_AUTH_PER_MINUTE: "5",
      ADMIN_REQUESTS_PER_MINUTE: "100",
      TOOL_PRICES: "journals/lookup=0.0025,pubmed/search=0.001",
      TOOL_UPSTREAMS: '[{"prefix":"pubmed","url":"https://mcp.example.org/mcp","authHeader":"Bearer x"}]',
    });
    for (const config of [plain, scaled]) {
      const env = configEnvironment(config);
      expect(Object.keys(env).sort()).toEqual([...CONFIG_VARIABLES].sort());
      expect(loadConfig(env)).toEqual(config);
    }
  });
});

describe("embedding settings", () => {
  it("reads EMBEDDING_WORKERS, refusing what is not a positive count", () => {
    expect(loadConfig({ ...BASE, EMBEDDING_WORKERS: "3" })).toMatchObject({ embeddingWorkers: 3 });
    expect(() => loadConfig({ ...BASE, EMBEDDING_WORKERS: "0" })).toThrow(/EMBEDDING_WORKERS/);
  });
});

describe("OpenSearch cluster settings", () => {
  it("takes one node or several, each once, and a shards/replicas layout beside them", () => {
    expect(loadConfig(BASE)).toMatchObject({ opensearchUrl: undefined, opensearchLayout: { shards: 1, replicas: 0 } });
    expect(
      loadConfig({
        ...BASE,
        OPENSEARCH_URL: " http://os-1:9200/ ,https://os-2.example:9200,,",
        OPENSEARCH_SHARDS: "3",
        OPENSEARCH_REPLICAS: "1",
      }),
    ).toMatchObject({
      opensearchUrl: "http://os-1:9200,https://os-2.example:9200",
      opensearchLayout: { shards: 3, replicas: 1 },
    });
  });

  it.each([
    [{ OPENSEARCH_URL: "os-1:9200" }, /OPENSEARCH_URL must be a node's address.*got os-1:9200/],
    [{ OPENSEARCH_URL: "ftp://os-1" }, /OPENSEARCH_URL must be a node's address/],
    [{ OPENSEARCH_URL: "http://os-1:9200?x=1" }, /OPENSEARCH_URL must be a node's address/],
    [{ OPENSEARCH_URL: "http://os-1:9200,http://os-1:9200/" }, /lists http:\/\/os-1:9200 twice: name each node once/],
    [{ OPENSEARCH_URL: "http://os:9200", OPENSEARCH_SHARDS: "0" }, /OPENSEARCH_SHARDS must be a positive integer/],
    [{ OPENSEARCH_URL: "http://os:9200", OPENSEARCH_SHARDS: "2048" }, /OPENSEARCH_SHARDS must be 1024 or fewer/],
    [{ OPENSEARCH_URL: "http://os:9200", OPENSEARCH_REPLICAS: "-1" }, /OPENSEARCH_REPLICAS must be a whole number/],
    [{ OPENSEARCH_URL: "http://os:9200", OPENSEARCH_REPLICAS: "one" }, /OPENSEARCH_REPLICAS must be a whole number/],
    [{ OPENSEARCH_URL: "http://os:9200", OPENSEARCH_REPLICAS: "17" }, /OPENSEARCH_REPLICAS must be 16 or fewer/],
    [{ OPENSEARCH_REPLICAS: "1" }, /set OPENSEARCH_URL too, or unset them/],
  ])("refuses %j at startup, naming the fix", (env, message) => {
    expect(() => loadConfig({ ...BASE, ...env })).toThrow(message);
  });
});
