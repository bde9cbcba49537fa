// Which request paths count as canonical: one spelling per route, everything else refused before routing.
import { describe, expect, it } from "vitest";
import { nonCanonicalReason } from "../../src/http/canonicalPath.js";

describe("nonCanonicalReason", () => {
  it("admits the routes as written, ids and ordinary escapes included", () => {
    for (const path of [
      "/",
      "/healthz",
      "/admin/v1/organizations/org_1a2b/credits",
      "/api/v1/search/results/q_123",
      "/api/v1/search/caf%C3%A9",
      "/api/v1/search/a%20b",
    ]) {
      expect(nonCanonicalReason(path), path).toBeUndefined();
    }
  });

  it("refuses every other spelling: empty and dot segments, trailing /, separators, needless or hiding escapes", () => {
    for (const path of [
      "admin/v1/verify",
      "/admin//v1/verify",
      "//admin/v1/verify",
      "/admin/v1/verify/",
      "/admin/./v1/verify",
      "/admin/v1/../v1/verify",
      "/admin\\v1/verify",
      "/admin/v1/verify;x",
      "/admin;x/v1/verify",
      "/admin/v1/verify%00",
      "/admin/v1/verify\u0000",
      "/%61dmin/v1/verify",
      "/admin/%76%31/verify",
      "/admin%2Fv1/verify",
      "/admin%2fv1/verify",
      "/admin/v1/%2e%2e/v1/verify",
      "/admin/v1/%2E/verify",
      "/admin%5cv1/verify",
      "/admin/v1/verify%3bx",
      "/admin/v1/ver%7Eify",
      "/admin/v1/%5Fx",
      "/admin/v1/%2Dx",
      "/admin/v1/x%7f",
    ]) {
      expect(nonCanonicalReason(path), path).toBeDefined();
    }
  });

  it("admits an encoded slash only inside a work id, where a DOI needs it", () => {
    for (const path of [
      "/api/v1/works/10.1000%2Fxyz",
      "/api/v1/works/https%3A%2F%2Fdoi.org%2F10.1000%2Fxyz/references",
      "/api/v1/works/10.1%2Fa/cited-by",
      // a DOI whose own slashes are encoded or not
      "/api/v1/works/10.1%2Fa/other",
    ])
      expect(nonCanonicalReason(path), path).toBeUndefined();
    for (const path of [
      "/api/v1/search%2Fquery",
      "/api/v1/works%2F10.1%2Fa",
      "/api/v1/works/10.1%2Fa/%2e%2e",
      "/api/v1/works/%61",
    ])
      expect(nonCanonicalReason(path), path).toBeDefined();
  });

  it("admits a DOI's slashes and a URL pasted whole into a work's path, nothing else", () => {
    for (const path of [
      "/api/v1/works/10.1176/appi.ajp.2009.09040539",
      "/api/v1/works/10.1176/appi.ajp.2009.09040539/references",
      "/api/v1/works/https://doi.org/10.1176/appi.ajp.2009.09040539/cited-by",
      "/api/v1/works/https:/doi.org/10.1176/appi.ajp.2009.09040539",
      "/api/v1/works/https://pubmed.ncbi.nlm.nih.gov/19833787/",
      "/api/v1/works/https://openalex.org/W565331994",
      // an author's id pasted as its URL
      "/api/v1/authors/https://orcid.org/0000-0003-3707-4444",
      "/api/v1/authors/https%3A%2F%2Forcid.org%2F0000-0003-3707-4444",
      "/api/v1/authors/https://openalex.org/A1928796387/works",
    ])
      expect(nonCanonicalReason(path), path).toBeUndefined();
    for (const path of [
      "/api/v1/works/10.1176//appi",
      "/api/v1/works/10.1176/appi/",
      "/api/v1/works/https://doi.org//10.1176/x",
      "/api/v1/works/https:///doi.org/x",
      "/api/v1/works/https://pubmed.ncbi.nlm.nih.gov/19833787//references",
      "/api/v1/works/10.1/../batch",
      "/api/v1/search//query",
      "/api/v1/search/https://x/",
    ])
      expect(nonCanonicalReason(path), path).toBeDefined();
  });
});
