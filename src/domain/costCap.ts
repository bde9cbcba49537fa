// A price cap (max_cost / maxCost): the rows best first while their charge, rounded once per collection as a charge
// is, stays within the cap; the rest are held back, and what the first of them would add named. Pure.
import { chargeLines, totalMicros } from "./organization.js";

export interface PricedRow {
  collection: string;
  tokens: number;
  pricePer1000Micros: string;
}

interface CostCapOutcome<T> {
  kept: T[];
  /** rows the cap held back (those after the first that did not fit) */
  withheld: number;
  /**
   * what the first row held back would add to the charge (its own price, give or take the half micro-credit a
   * collection's total rounds by), or null when nothing was: more than the cap had left, so a cap raised by it buys it
   */
  nextRowCostMicros: bigint | null;
  /** what the kept rows charge */
  costMicros: bigint;
}

const lineOf = (r: PricedRow) => ({
  collection: r.collection,
  tokens: r.tokens,
  pricePer1000Micros: BigInt(r.pricePer1000Micros),
});

/**
 * The longest best-first prefix of `rows` whose charge is at most `maxCostMicros` (undefined: no cap). A prefix, not
 * the rows that happen to fit: a cheaper row further down never jumps a dearer better one, so a cursor's next page
 * starts at the first row held back and a paged list stays in its order.
 */
export function capToCost<T extends PricedRow>(
  rows: readonly T[],
  maxCostMicros: bigint | undefined,
): CostCapOutcome<T> {
  const all = totalMicros(chargeLines(rows.map(lineOf)));
  if (maxCostMicros === undefined || all <= maxCostMicros)
    return { kept: [...rows], withheld: 0, nextRowCostMicros: null, costMicros: all };
  let kept = 0;
  let cost = 0n;
  let next = 0n;
  for (; kept < rows.length; kept++) {
    next = totalMicros(chargeLines(rows.slice(0, kept + 1).map(lineOf)));
    if (next > maxCostMicros) break;
    cost = next;
  }
  return { kept: rows.slice(0, kept), withheld: rows.length - kept, nextRowCostMicros: next - cost, costMicros: cost };
}
