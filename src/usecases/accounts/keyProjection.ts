// What an API key's events change: its row (mode, scope, spending cap, revocation). project() hands these events
// here; the same handler feeds the inline projector and replay. Spend and "last used" follow the events that use a key.
import type { ProjectableEvent } from "../../domain/events.js";
import type { ApiKeyRow } from "./keyTables.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";

type KeyEvent = Extract<ProjectableEvent, { type: "ApiKeyCreated" | "ApiKeyRevoked" | "ApiKeySpendingCapChanged" }>;

function requireKey(read: ProjectionReader, keyId: string): ApiKeyRow {
  const key = read.apiKey(keyId);
  if (!key) throw new Error(`projection: no api key ${keyId}`);
  return key;
}

export function projectKey(e: KeyEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "ApiKeyCreated": {
      const d = e.data;
      return [
        {
          table: "api_keys",
          row: {
            key_id: d.keyId,
            org_id: d.orgId,
            mode: d.mode,
            key_hash: d.keyHash,
            key_prefix: d.keyPrefix,
            collections: d.collections,
            spending_cap_micros: d.spendingCapMicros,
            spent_micros: "0",
            revoked: false,
            version: e.streamVersion,
            name: d.name ?? null,
          },
        },
      ];
    }
    case "ApiKeyRevoked":
      return [
        {
          table: "api_keys",
          row: Object.assign(requireKey(read, e.data.keyId), { revoked: true, version: e.streamVersion }),
        },
      ];
    case "ApiKeySpendingCapChanged": {
      const key = requireKey(read, e.data.keyId);
      return [
        {
          table: "api_keys",
          row: Object.assign(key, { spending_cap_micros: e.data.spendingCapMicros, version: e.streamVersion }),
        },
      ];
    }
  }
}
