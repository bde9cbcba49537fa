// HTTP requests sent exactly as written, for tests of path spellings and headers (fetch would normalize the path).
import { request } from "node:http";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  // a Buffer is sent as it is, with the caller's headers (a form post, text that is no JSON)
  const raw = Buffer.isBuffer(body);
  const payload = body === undefined ? undefined : raw ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(payload
            ? {
                ...(raw ? {} : { "Content-Type": "application/json" }),
                "Content-Length": String(Buffer.byteLength(payload)),
              }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: kept as text so an assertion shows it
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
