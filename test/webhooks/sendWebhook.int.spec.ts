// One delivery attempt against a real HTTP receiver on loopback (node:http, no component of ours): without the
// operator's flag the URL guard refuses the loopback receiver before anything is sent; a redirect is not followed; the
// attempt connects to the address the guard checked, so a name that resolves elsewhere afterwards (DNS rebinding)
// reaches nothing new; a name that resolves to 10.x is refused at the check every attempt makes. And an event whose
// body would pass 256 KB is refused before anything is appended (PGlite).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkWebhookUrl, type HostLookup } from "../../src/usecases/webhooks/urlGuard.js";
import { sendWebhook } from "../../src/usecases/webhooks/sendWebhook.js";
import { createWebhooks } from "../../src/usecases/webhooks/webhooks.js";
import { MAX_WEBHOOK_BODY_BYTES } from "../../src/domain/webhooks.js";
import type { Client } from "@temporalio/client";
import { freshStore } from "../support/stores.js";

let server: Server;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    req.resume();
    if (req.url === "/moved") {
      res.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` });
      res.end("moved");
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const send = (target: Awaited<ReturnType<typeof checkWebhookUrl>>) =>
  sendWebhook(target, '{"type":"webhook.test"}', { "webhook-id": "msg_test" }, 5000);

describe("a webhook attempt against a loopback receiver", () => {
  it("is refused without the operator's flag, before anything is sent", async () => {
    const before = hits.length;
    for (const url of [`http://127.0.0.1:${port}/hook`, `https://localhost:${port}/hook`])
      await expect(checkWebhookUrl(url, { allowPrivate: false })).rejects.toThrow(/https|loopback or private/);
    expect(hits.length).toBe(before);
  });

  it("does not follow a redirect: the 302 is the attempt's answer", async () => {
    const outcome = await send(await checkWebhookUrl(`http://127.0.0.1:${port}/moved`, { allowPrivate: true }));
    expect(outcome).toMatchObject({ status: 302, excerpt: "moved", error: null });
    expect(hits).toContain("/moved");
    expect(hits).not.toContain("/elsewhere");
  });

  it("connects to the address it checked, never looking the name up again", async () => {
    // the name resolves to the receiver once (the check); any later lookup would answer an internal address
    let lookups = 0;
    const lookup: HostLookup = async () => {
      lookups++;
      return lookups === 1 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "10.9.9.9", family: 4 }];
    };
    const target = await checkWebhookUrl(`http://rebinding.example.test:${port}/pinned`, {
      allowPrivate: true,
      lookup,
    });
    const outcome = await send(target);
    expect(outcome.status).toBe(200);
    expect(hits).toContain("/pinned");
    expect(lookups).toBe(1);
    // the check of the next attempt sees the new address: without the flag it is refused, nothing sent
    await expect(
      checkWebhookUrl(`https://rebinding.example.test/pinned`, { allowPrivate: false, lookup }),
    ).rejects.toThrow(/10\.9\.9\.9.*loopback or private/);
  });
});

describe("an event's body", () => {
  it("is at most 256 KB: a larger one is refused and nothing is appended", async () => {
    const db = await freshStore("pglite");
    try {
      // no delivery starts here: the refusal comes before any (the Temporal client is never reached)
      const webhooks = createWebhooks({
        db,
        client: {} as Client,
        clock: () => new Date(),
        settings: { secretKey: "k".repeat(40), retrySeconds: [1], allowPrivateUrls: true },
      });
      const actor = { kind: "operator" as const, id: "test" };
      await webhooks.create(
        "org_limits",
        { url: `http://127.0.0.1:${port}/big`, events: ["alert.matched"] },
        actor,
        "unmetered",
      );
      const big = { works: ["x".repeat(MAX_WEBHOOK_BODY_BYTES)] };
      await expect(webhooks.publish("org_limits", "alert.matched", big, "test:big", actor)).rejects.toThrow(
        /larger than 262144 bytes/,
      );
      const [row] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM events WHERE type = 'WebhookEventCreated'",
      );
      expect(row!.n).toBe(0);
      expect(hits).not.toContain("/big");
    } finally {
      await db.close();
    }
  });
});
