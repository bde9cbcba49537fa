// GET /openapi.json, and /docs: the document rendered by Swagger UI, whose assets are served from the installed
// swagger-ui-dist package (no CDN). No credentials: the group is mounted public.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import Router from "@koa/router";
import { ApiError } from "../../wire/errors.js";

const require = createRequire(import.meta.url);

/** The page allows nothing but its own origin (data: images are Swagger UI's inline icons in its stylesheet). */
export const DOCS_CONTENT_SECURITY_POLICY =
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

/** `document` is built once, by the caller; it is served as the same bytes every time. */
export function docsRoutes(document: object): Router {
  const router = new Router({ sensitive: true, strict: true });
  const documentJson = JSON.stringify(document);
  const files = assets();

  router.get("/openapi.json", (ctx) => {
    ctx.type = "application/json";
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.body = documentJson;
  });
  router.get("/docs", (ctx) => {
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.body = PAGE;
  });
  router.get("/docs/assets/:file", (ctx) => {
    const asset = files.get(ctx.params.file!);
    if (!asset) throw new ApiError(404, "NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
    ctx.type = asset.type;
    ctx.set("Cache-Control", "public, max-age=86400");
    ctx.body = asset.body();
  });
  return router;
}
