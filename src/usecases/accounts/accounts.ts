// The accounts of the billing store, composed: organization and key commands, the charges requests make, and the
// account reads. Each concern is its own module beside this one; authentication (../auth/authenticate.ts) and the
// catalogue's events (../catalogue/) are composed in the composition root, not here.
import type { Db } from "../../eventstore/db.js";
import { createAccountReads } from "./accountReads.js";
import { createCharges } from "./charges.js";
import { createKeyCommands } from "./keyCommands.js";
import { createOrgCommandRunner } from "./orgCommand.js";
import { createOrganizationCommands } from "./organizationCommands.js";

export type { ApiKeyRecord, Organization } from "./orgState.js";
export type { CommandResult } from "./orgCommand.js";
export type { ChargeResult } from "./chargeBatch.js";

export type Accounts = ReturnType<typeof createAccounts>;

export function createAccounts(db: Db, clock: () => Date = () => new Date()) {
  const runOrgCommand = createOrgCommandRunner(db, clock);
  const reads = createAccountReads(db);
  return {
    db,
    ...reads,
    ...createOrganizationCommands(runOrgCommand, reads),
    ...createKeyCommands(db, clock),
    ...createCharges(db, clock, runOrgCommand, reads),
  };
}
