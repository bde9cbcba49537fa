// CSV cells as every CSV the service writes them (the ledger, usage, exports for screening). Pure.

/** A CSV cell: quoted when it holds a comma, a quote or a line break. */
export const csvCell = (v: string | null) => (v === null ? "" : /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * A cell of free text someone wrote or a source gave (a key's name, a credit's reference, a title): one a
 * spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return) is led by an apostrophe,
 * so it opens as text.
 */
export const csvText = (v: string | null) => csvCell(v !== null && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
