// The wire contract's guard: the OpenAPI document the service serves equals the committed snapshot of it
// (test/fixtures/openapi/document.snapshot.json), operation by operation and byte by byte. A change to the document is
// either a mistake this test catches or an intended difference, listed here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { buildOpenApiDocument } from "../../src/http/openApiDocument.js";

const SNAPSHOT = "test/fixtures/openapi/document.snapshot.json";

type Document = { paths: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/**
 * The one intended difference: the order of the paths (and of the methods under a path). The routes are declared group
 * by group beside their handlers, so the document lists them in the routers' order. Everything else, each operation's
 * words and key order included, must stay as the snapshot has it.
 */
function pathsInOrder(document: Document): Document {
  const sorted = Object.keys(document.paths)
    .sort()
    .map((path) => {
      const operations = document.paths[path]!;
      return [
        path,
        Object.fromEntries(
          Object.keys(operations)
            .sort()
            .map((m) => [m, operations[m]]),
        ),
      ] as const;
    });
  return { ...document, paths: Object.fromEntries(sorted) };
}

const asText = (document: Document) => JSON.stringify(pathsInOrder(document), null, 2);

describe("the OpenAPI document against its snapshot", () => {
  const built = buildOpenApiDocument() as unknown as Document;
  const snapshot = JSON.parse(readFileSync(join(REPO_ROOT, SNAPSHOT), "utf8")) as Document;

  it("serves the same operations, parameters, bodies, responses and components", () => {
    const missing = Object.keys(snapshot.paths).flatMap((path) =>
      Object.keys(snapshot.paths[path]!)
        .filter((method) => !built.paths[path]?.[method])
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    const added = Object.keys(built.paths).flatMap((path) =>
      Object.keys(built.paths[path]!)
        .filter((method) => !snapshot.paths[path]?.[method])
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect({ missing, added }).toEqual({ missing: [], added: [] });
    for (const path of Object.keys(snapshot.paths))
      for (const method of Object.keys(snapshot.paths[path]!))
        expect(JSON.stringify(built.paths[path]![method], null, 2), `${method.toUpperCase()} ${path}`).toBe(
          JSON.stringify(snapshot.paths[path]![method], null, 2),
        );
  });

  it("is byte-identical to the snapshot but for the order of its paths", () => {
    // an intended change to the contract: write the new document over the snapshot
    // (JSON.stringify(buildOpenApiDocument(), null, 2) and a newline) and say why in the commit
    expect(asText(built)).toBe(asText(snapshot));
  });
});
