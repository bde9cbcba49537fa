// The ledger as CSV for finance: one row per entry with the balance after it (CLI `ledger --csv` and the admin API).

export interface LedgerEntryView {
  time: string;
  type: string;
  amount: string;
  balanceAfter: string;
  keyId: string | null;
  queryId: string | null;
  reference: string | null;
}

const cell = (v: string | null) => (v === null ? "" : /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function ledgerCsv(entries: LedgerEntryView[]): string {
  return (
    [
      "time,type,amount,balance_after,key_id,query_id,reference",
      ...entries.map((e) =>
        [e.time, e.type, e.amount, e.balanceAfter, e.keyId, e.queryId, e.reference].map(cell).join(","),
      ),
    ].join("\n") + "\n"
  );
}
