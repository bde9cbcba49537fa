// An API key's rules: decideKey(command, state) -> events. Pure; the secret is drawn by the caller (randomness is
// I/O), and only its hash and prefix enter the event.
import type { DomainEvent, KeyMode } from "./events.js";
import type { KeyState } from "./organization.js";
import { Rejection } from "./rejection.js";

export type KeyCommand =
  | {
      type: "CreateKey";
      keyId: string;
      orgId: string;
      /** whether the organization exists, as the command runner found it */
      organizationFound: boolean;
      mode: KeyMode;
      keyHash: string;
      keyPrefix: string;
      collections: string[] | null;
      spendingCapMicros: bigint | null;
      /** null: no name */
      name: string | null;
    }
  | { type: "RevokeKey"; keyId: string }
  /** null clears the cap */
  | { type: "SetSpendingCap"; keyId: string; spendingCapMicros: bigint | null };

const KEY_NAME_MAX_LENGTH = 100;

/**
 * A key's name as kept: trimmed, inner whitespace runs as one space; empty is no name; control characters are refused.
 */
function keyName(name: string | null): string | null {
  if (name === null) return null;
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(name))
    throw new Rejection("VALIDATION_ERROR", "name: a key name is one line of text without control characters");
  const kept = name.trim().replace(/\s+/g, " ");
  if (kept.length > KEY_NAME_MAX_LENGTH)
    throw new Rejection("VALIDATION_ERROR", `name: at most ${KEY_NAME_MAX_LENGTH} characters`);
  return kept || null;
}

export function decideKey(command: KeyCommand, state: KeyState | undefined): DomainEvent[] {
  switch (command.type) {
    case "CreateKey": {
      if (state) throw new Rejection("VALIDATION_ERROR", `API key ${command.keyId} already exists`);
      if (!command.organizationFound) throw new Rejection("NOT_FOUND", "organization not found");
      if (command.spendingCapMicros !== null && command.spendingCapMicros < 0n)
        throw new Rejection("VALIDATION_ERROR", "a spending cap cannot be negative");
      const name = keyName(command.name);
      const { keyId, orgId, mode, keyHash, keyPrefix, collections } = command;
      return [
        {
          type: "ApiKeyCreated",
          data: {
            keyId,
            orgId,
            mode,
            keyHash,
            keyPrefix,
            collections,
            spendingCapMicros: command.spendingCapMicros?.toString() ?? null,
            ...(name ? { name } : {}),
          },
        },
      ];
    }
    case "RevokeKey":
      if (!state) throw new Rejection("NOT_FOUND", `API key ${command.keyId} not found`);
      // revoking a revoked key changes nothing
      return state.revoked ? [] : [{ type: "ApiKeyRevoked", data: { keyId: state.keyId, orgId: state.orgId } }];
    case "SetSpendingCap": {
      if (!state) throw new Rejection("NOT_FOUND", `API key ${command.keyId} not found`);
      if (state.revoked) throw new Rejection("VALIDATION_ERROR", "a revoked key has no spending cap to change");
      const cap = command.spendingCapMicros;
      if (cap !== null && cap < 0n) throw new Rejection("VALIDATION_ERROR", "a spending cap cannot be negative");
      // a cap below what the key has spent is allowed: the key is then refused until the cap is raised
      if (cap === state.spendingCapMicros) return [];
      return [
        {
          type: "ApiKeySpendingCapChanged",
          data: {
            keyId: state.keyId,
            orgId: state.orgId,
            spendingCapMicros: cap?.toString() ?? null,
            previous: state.spendingCapMicros?.toString() ?? null,
          },
        },
      ];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
}
