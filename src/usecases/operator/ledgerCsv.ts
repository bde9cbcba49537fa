// The ledger as CSV for finance: one row per entry with the balance after it (CLI `ledger --csv` and the admin API).
import { csvCell, csvText } from "../../domain/csv.js";

export interface LedgerEntryView {
  time: string;
  type: string;
  amount: string;
  balanceAfter: string;
  keyId: string | null;
  queryId: string | null;
  reference: string | null;
  /** the X-Request-Id of the call that caused the line, where it recorded one */
  requestId: string | null;
}

export function ledgerCsv(entries: LedgerEntryView[]): string {
  return (
    [
      "time,type,amount,balance_after,key_id,query_id,reference,request_id",
      // a request id may be the caller's own X-Request-Id: free text, as a reference is
      ...entries.map((e) =>
        [
          ...[e.time, e.type, e.amount, e.balanceAfter, e.keyId, e.queryId].map(csvCell),
          csvText(e.reference),
          csvText(e.requestId),
        ].join(","),
      ),
    ].join("\n") + "\n"
  );
}
