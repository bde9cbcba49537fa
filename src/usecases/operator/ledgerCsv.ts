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
      "time,type,amount,balance_after,key_id,query_id,reference",
      ...entries.map((e) =>
        [...[e.time, e.type, e.amount, e.balanceAfter, e.keyId, e.queryId].map(csvCell), csvText(e.reference)].join(
          ",",
        ),
      ),
    ].join("\n") + "\n"
  );
}
