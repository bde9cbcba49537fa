// One HTTP attempt of a webhook delivery: POSTs the signed body to the address the URL guard checked (the connection
// never looks the name up again), follows no redirect, reads at most a little of the answer, and gives up after a
// timeout. Never throws for what the receiver does: the outcome says it.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { RESPONSE_EXCERPT_CHARS } from "../../domain/webhooks.js";
import type { CheckedTarget } from "./urlGuard.js";

export interface AttemptOutcome {
  /** the receiver's HTTP status; null when no answer came (refused, timed out, reset) */
  status: number | null;
  latencyMs: number;
  /** the first characters of the answer's body, or why there was none */
  excerpt: string;
  error: string | null;
}

/** How much of an answer is read before the connection is closed. */
const MAX_RESPONSE_BYTES = 16 * 1024;

export async function sendWebhook(
  target: CheckedTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const { url } = target;
  const pinned = target.addresses[0]!;
  // the connection's lookup answers the checked address: a name rebinding to another address between check and connect
  // changes nothing
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: pinned.address, family: pinned.family },
      ]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (o: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = send(
      url,
      {
        method: "POST",
        lookup,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "litsearch-webhooks/1",
        },
        // keep-alive pools would reuse a socket opened to another address
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(c);
          size += c.length;
          if (size >= MAX_RESPONSE_BYTES) res.destroy();
        });
        const done = () =>
          finish({
            status: res.statusCode ?? null,
            latencyMs: latency(),
            excerpt: Buffer.concat(chunks).toString("utf8").slice(0, RESPONSE_EXCERPT_CHARS),
            error: null,
          });
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({
        status: null,
        latencyMs: latency(),
        excerpt: "",
        error: `no answer within ${Math.round(timeoutMs / 1000)} s`,
      });
    }, timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) =>
      finish({ status: null, latencyMs: latency(), excerpt: "", error: err.code ?? err.message }),
    );
    req.end(body);
  });
}
