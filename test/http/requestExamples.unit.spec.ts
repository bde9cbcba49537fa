// The request examples of the OpenAPI document parse with the very zod schemas the routes validate with, and every
// request body of the document carries them (the running service checks that they succeed: openapiExamples.e2e).
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/http/openApiDocument.js";
import { NAMED_SCHEMAS } from "../../src/http/openapi/operation.js";
import { REQUEST_EXAMPLES } from "../../src/http/openapi/requestExamples.js";

describe("request examples", () => {
  it("each parses with the schema it is an example of", () => {
    const failures: string[] = [];
    for (const [schemaName, examples] of Object.entries(REQUEST_EXAMPLES)) {
      const schema = NAMED_SCHEMAS[schemaName as keyof typeof NAMED_SCHEMAS];
      if (!schema) {
        failures.push(`${schemaName}: no such request schema`);
        continue;
      }
      for (const [name, example] of Object.entries(examples)) {
        const parsed = schema.safeParse(example.value);
        if (!parsed.success) failures.push(`${schemaName}/${name}: ${parsed.error.message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("the document puts them on every request body; Swagger's first search body example names one collection", () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            requestBody?: {
              content: Record<string, { examples?: Record<string, { value: Record<string, unknown> }> }>;
            };
          }
        >
      >;
    };
    const withoutExample: string[] = [];
    for (const methods of Object.values(doc.paths)) {
      for (const op of Object.values(methods)) {
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
          if (!media.examples) withoutExample.push(`${op.operationId} ${type}`);
      }
    }
    expect(withoutExample).toEqual([]);
    const query = Object.values(
      doc.paths["/api/v1/search/query"]!.post!.requestBody!.content["application/json"]!.examples!,
    )[0]!.value;
    expect("collection" in query && "collections" in query).toBe(false);
    expect(typeof query.filters).toBe("object");
  });
});
