// The operator commands of the books: reconciliation, the ledger, replay of the projections and the hash chain's
// verification.
import { ledgerCsv } from "../../usecases/operator/ledgerCsv.js";
import type { CommandContext, Commands } from "./commandContext.js";

export function bookCommands({ values, sub, ops, db, print }: CommandContext): Commands {
  return {
    reconcile: async () => {
      const reports = sub
        ? [await ops.reconcile(sub, values.from, values.to)]
        : (await ops.reconcileAll(values.from, values.to)).organizations;
      print(reports);
      const bad = reports.reduce((s, r) => s + r.discrepancies.length, 0);
      console.log(
        `reconciled ${reports.length} organization(s): ${bad === 0 ? "no discrepancy" : `${bad} DISCREPANCIES`}`,
      );
      return bad === 0 ? 0 : 1;
    },
    ledger: async () => {
      const ledger = await ops.ledger(sub ?? "");
      if (values.csv) process.stdout.write(ledgerCsv(ledger.entries));
      else print(ledger);
      return 0;
    },
    replay: async () => {
      const report = await ops.replay();
      for (const t of report.tables)
        console.log(
          `${t.equal ? "equal  " : "DIFFERS"} ${t.table.padEnd(14)} rows=${String(t.rows).padStart(7)} live=` +
            `${t.live.slice(0, 16)} rebuilt=${t.rebuilt.slice(0, 16)}`,
        );
      console.log(
        JSON.stringify({
          events: report.events,
          seconds: report.seconds,
          eventsPerSecond: report.eventsPerSecond,
          equal: report.equal,
        }),
      );
      if (!report.equal && values.promote && db) {
        const { promoteReplay } = await import("../../../projections/replay.js");
        await promoteReplay(db);
        console.log("live projections replaced by the rebuilt ones");
        return 0;
      }
      return report.equal ? 0 : 1;
    },
    verify: async () => {
      const verdict = await ops.verify();
      print(verdict);
      return verdict.ok ? 0 : 1;
    },
  };
}
