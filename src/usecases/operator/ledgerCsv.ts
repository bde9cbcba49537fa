// The ledger as CSV for finance: one row per entry with the balance after it (CLI `ledger --csv` and the admin API).

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

/** A CSV cell: quoted when it holds a comma, a quote or a line break. */
export const csvCell = (v: string | null) => (v === null ? "" : /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * A cell of free text someone wrote (a key's name, a credit's reference): one a spreadsheet would run as a formula
 * (starting with =, +, -, @, a tab or a carriage return) is led by an apostrophe, so finance opens it as text.
 */
export const csvText = (v: string | null) => csvCell(v !== null && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

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
