// GET /openapi.json, and /docs: the document rendered by Swagger UI, whose assets are served from the installed
// swagger-ui-dist package (no CDN). No credentials: the routes are declared public.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { declareRoute } from "../routeDeclaration.js";
import { ApiError } from "../../wire/errors.js";

const require = createRequire(import.meta.url);

/** The page allows nothing but its own origin (data: images are Swagger UI's inline icons in its stylesheet). */
const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src " +
  "'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// the initializer is a file, not an inline script, so the policy needs no 'unsafe-inline'
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>litsearch API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/docs-init.js"></script>
  </body>
</html>
`;

interface Asset {
  type: string;
  body: () => Buffer | string;
}

/** The only files served under /docs/assets: a fixed list, so no request names a path on disk. */
function assets(): Map<string, Asset> {
  const dist: string = (require("swagger-ui-dist") as { absolutePath: () => string }).absolutePath();
  const cached = (file: string) => {
    let content: Buffer | undefined;
    return () => (content ??= readFileSync(join(dist, file)));
  };
  return new Map<string, Asset>([
    ["swagger-ui.css", { type: "text/css; charset=utf-8", body: cached("swagger-ui.css") }],
    ["swagger-ui-bundle.js", { type: "application/javascript; charset=utf-8", body: cached("swagger-ui-bundle.js") }],
    ["favicon-32x32.png", { type: "image/png", body: cached("favicon-32x32.png") }],
    ["docs-init.js", { type: "application/javascript; charset=utf-8", body: () => INITIALIZER }],
  ]);
}

/** What the docs routes serve: the document, as its JSON text (built once), and the page's files. */
interface DocsRouteDeps {
  documentJson: string;
  files: Map<string, Asset>;
}

/** `document` is built once, by the caller; it is served as the same bytes every time. */
export const docsRouteDeps = (document: object): DocsRouteDeps => ({
  documentJson: JSON.stringify(document),
  files: assets(),
});

export const DOCS_ROUTES = [
  declareRoute<DocsRouteDeps>({
    method: "get",
    path: "/openapi.json",
    tag: "docs",
    access: "public",
    operationId: "openApiDocument",
    summary: "This document",
    response: { content: { "application/json": { schema: { type: "object" } } } },
    errors: [],
    handler: (ctx, { documentJson }) => {
      ctx.type = "application/json";
      ctx.set("Cache-Control", "public, max-age=300");
      ctx.body = documentJson;
    },
  }),
  declareRoute<DocsRouteDeps>({
    method: "get",
    path: "/docs",
    tag: "docs",
    access: "public",
    operationId: "docsPage",
    summary: "This document rendered as a page (Swagger UI, served locally)",
    response: { content: { "text/html": { schema: { type: "string" } } } },
    errors: [],
    handler: (ctx) => {
      ctx.type = "text/html; charset=utf-8";
      ctx.set("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
      ctx.set("Cache-Control", "public, max-age=300");
      ctx.body = PAGE;
    },
  }),
  declareRoute<DocsRouteDeps>({
    method: "get",
    path: "/docs/assets/:file",
    tag: "docs",
    access: "public",
    operationId: "docsAsset",
    summary: "The documentation page's scripts and styles",
    response: {
      content: {
        "application/javascript": { schema: { type: "string" } },
        "text/css": { schema: { type: "string" } },
        "image/png": { schema: { type: "string", contentMediaType: "image/png" } },
      },
    },
    errors: [404],
    handler: (ctx, { files }) => {
      const asset = files.get(ctx.params.file!);
      if (!asset) throw new ApiError(404, "NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
      ctx.type = asset.type;
      ctx.set("Cache-Control", "public, max-age=86400");
      ctx.body = asset.body();
    },
  }),
];
