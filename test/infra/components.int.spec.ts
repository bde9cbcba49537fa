// Checks that each real component started by globalSetup answers: Temporal, PostgreSQL and OpenSearch, including the
// vector scoring the OpenSearch adapter relies on.
import { Client as OpenSearchClient } from "@opensearch-project/opensearch";
import { Client as TemporalClient, Connection } from "@temporalio/client";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { cacheDirFrom } from "../../src/app/config.js";
import { readComponent } from "../../src/infra/components.js";
import { requireComponent } from "../setup/components.js";

describe("Temporal dev server", () => {
  it("describes its namespace and lists workflows", async () => {
    const address = requireComponent("temporalAddress");
    const namespace = inject("temporalNamespace") ?? "default";
    const connection = await Connection.connect({ address });
    try {
      const described = await connection.workflowService.describeNamespace({ namespace });
      expect(described.namespaceInfo?.name).toBe(namespace);

      const client = new TemporalClient({ connection, namespace });
      const listed: string[] = [];
      for await (const workflow of client.workflow.list({ pageSize: 10 })) {
        listed.push(workflow.workflowId);
        if (listed.length >= 10) break;
      }
      expect(Array.isArray(listed)).toBe(true);
    } finally {
      await connection.close();
    }
  });
});

describe("PostgreSQL server", () => {
  it("answers SELECT 1", async () => {
    const client = new pg.Client({ connectionString: requireComponent("postgresUrl") });
    await client.connect();
    try {
      const result = await client.query<{ one: number }>("SELECT 1 AS one");
      expect(result.rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });

  it("serves two connections at once", async () => {
    const pool = new pg.Pool({ connectionString: requireComponent("postgresUrl"), max: 2 });
    try {
      // Both queries sleep together: they only overlap if the server runs two backends.
      const started = Date.now();
      const pids = await Promise.all(
        [0, 1].map(
          async () => (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid, pg_sleep(0.3)")).rows[0].pid,
        ),
      );
      expect(new Set(pids).size).toBe(2);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await pool.end();
    }
  });
});

describe("OpenSearch node", () => {
  const index = `infra-check-${Date.now()}`;

  it("reports cluster health", async () => {
    const client = new OpenSearchClient({ node: requireComponent("opensearchUrl") });
    const health = await client.cluster.health();
    expect(["green", "yellow"]).toContain(health.body.status);
  });

  it("runs on the JVM with the flags provision chose, Lucene's vector API on when it chose a JDK for it", async () => {
    const component = readComponent("opensearch", cacheDirFrom(process.env));
    const client = new OpenSearchClient({ node: requireComponent("opensearchUrl") });
    const { body } = await client.nodes.info({ metric: ["jvm"] });
    const jvm = Object.values(body.nodes as Record<string, { jvm: { version: string; input_arguments: string[] } }>)[0]!
      .jvm;
    expect(jvm.input_arguments).toEqual(expect.arrayContaining(component.jvmArgs));
    const major = (component.runtime ?? "").match(/^java (\d+) /)?.[1];
    if (component.jvmArgs.includes("--add-modules=jdk.incubator.vector")) {
      expect(component.runtime).toMatch(/Java vector incubator API enabled/);
      expect(jvm.version.split(".")[0]).toBe(major);
      expect(jvm.input_arguments).toContain(`-Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=${major}`);
    }
  });

  it("indexes with the english analyzer, matches stems, and scores vectors with painless", async () => {
    const client = new OpenSearchClient({ node: requireComponent("opensearchUrl") });
    await client.indices.create({
      index,
      body: {
        settings: { number_of_shards: 1, number_of_replicas: 0 },
        mappings: {
          properties: {
            text: { type: "text", analyzer: "english" },
            // No k-NN plugin: vectors are little-endian float32 bytes in a binary doc-values field.
            embedding: { type: "binary", doc_values: true },
          },
        },
      },
    });
    try {
      await client.bulk({
        refresh: true,
        body: [
          { index: { _index: index, _id: "cats" } },
          { text: "Running experiments on cats", embedding: float32Base64([1, 0]) },
          { index: { _index: index, _id: "dogs" } },
          { text: "A quiet history of dogs", embedding: float32Base64([0, 1]) },
        ],
      });

      const matched = await client.search({ index, body: { query: { match: { text: "run" } } } });
      expect(matched.body.hits.hits.map((hit) => hit._id)).toEqual(["cats"]);

      const scored = await client.search({
        index,
        body: {
          query: {
            script_score: {
              query: { match_all: {} },
              script: { source: DOT_PRODUCT_OVER_BINARY_DOC_VALUES, params: { field: "embedding", q: [0.2, 0.9] } },
            },
          },
        },
      });
      const hits = scored.body.hits.hits;
      expect(hits.map((hit) => hit._id)).toEqual(["dogs", "cats"]);
      expect(hits[0]._score).toBeCloseTo(1.9, 5);
      expect(hits[1]._score).toBeCloseTo(1.2, 5);
    } finally {
      await client.indices.delete({ index });
    }
  });
});

// 1 + q·v, decoding v from the binary doc value; script_score needs a non-negative score.
const DOT_PRODUCT_OVER_BINARY_DOC_VALUES = `
  BytesRef b = doc[params.field].value;
  byte[] a = b.bytes;
  double dot = 0;
  for (int i = 0; i < params.q.length; i++) {
    int p = b.offset + i * 4;
    int bits = (a[p] & 255) | (a[p + 1] & 255) << 8 | (a[p + 2] & 255) << 16 | (a[p + 3] & 255) << 24;
    dot += Float.intBitsToFloat(bits) * params.q[i];
  }
  return 1.0 + dot;
`;

function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString("base64");
}
