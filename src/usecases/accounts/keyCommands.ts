// API key commands: create, revoke, set a spending cap, each decided by the key decider on its own key stream.
import type { Db, Queryable } from "../../eventstore/db.js";
import { sqlReader } from "../../../projections/sqlProjection.js";
import { decideKey, type KeyCommand } from "../../domain/apiKey.js";
import { keyStream, type Actor, type KeyMode } from "../../domain/events.js";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { generateApiKey, hashApiKey, keyPrefixOf, newId } from "./apiKeys.js";
import { keyStateOf } from "./orgState.js";

export function createKeyCommands(db: Db, clock: () => Date) {
  /**
   * One command against a key stream, like an organization command: lock, read the key, decide, append and project
   * together.
   */
  async function runKeyCommand(
    keyId: string,
    actor: Actor,
    build: (tx: Queryable) => Promise<KeyCommand>,
  ): Promise<void> {
    await runStreamCommand(db, clock, keyStream(keyId), actor, async (tx) => {
      const row = await sqlReader(tx, db.projectors.tables, "proj_").apiKey(keyId);
      return { version: row?.version ?? 0, events: decideKey(await build(tx), row && keyStateOf(row)) };
    });
  }

  return {
    async createKey(
      orgId: string,
      input: { mode: KeyMode; collections: string[] | null; spendingCapMicros: bigint | null; name?: string | null },
      actor: Actor,
    ): Promise<{ id: string; key: string }> {
      const key = generateApiKey(input.mode);
      const keyId = newId("key");
      await runKeyCommand(keyId, actor, async (tx) => ({
        type: "CreateKey",
        keyId,
        orgId,
        organizationFound: (await sqlReader(tx, db.projectors.tables, "proj_").organization(orgId)) !== undefined,
        mode: input.mode,
        keyHash: hashApiKey(key),
        keyPrefix: keyPrefixOf(key),
        collections: input.collections,
        spendingCapMicros: input.spendingCapMicros,
        name: input.name ?? null,
      }));
      return { id: keyId, key };
    },

    async revokeKey(keyId: string, actor: Actor): Promise<void> {
      await runKeyCommand(keyId, actor, async () => ({ type: "RevokeKey", keyId }));
    },

    /** null clears the cap */
    async setSpendingCap(keyId: string, spendingCapMicros: bigint | null, actor: Actor): Promise<void> {
      await runKeyCommand(keyId, actor, async () => ({ type: "SetSpendingCap", keyId, spendingCapMicros }));
    },
  };
}
