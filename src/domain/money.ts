// Money as integer micro-credits (bigint) inside; decimal strings only at the edges.

const MICROS_PER_CREDIT = 1_000_000n;

const DECIMAL = /^(-)?(\d{1,12})(?:\.(\d{1,6}))?$/;

/** Parses a decimal string such as "25.00" or "0.000123" into micro-credits; null when malformed. */
export function parseCredits(text: string): bigint | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const whole = BigInt(m[2]!);
  const frac = BigInt((m[3] ?? "").padEnd(6, "0"));
  const micros = whole * MICROS_PER_CREDIT + frac;
  return m[1] ? -micros : micros;
}

/** Formats micro-credits with exactly `decimals` places (6 for headers, 2..6 for display). */
export function formatCredits(micros: bigint, decimals = 6): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / MICROS_PER_CREDIT;
  const frac = (abs % MICROS_PER_CREDIT).toString().padStart(6, "0");
  const shown = decimals >= 6 ? frac.padEnd(decimals, "0") : frac.slice(0, decimals);
  const body = decimals > 0 ? `${whole}.${shown}` : `${whole}`;
  return negative ? `-${body}` : body;
}

/**
 * Cost of `tokens` at a price per 1000 tokens given in micro-credits, rounded half-up to whole
 * micro-credits (6 decimals), once per collection as the pricing rule says.
 */
export function costForTokens(tokens: number, pricePer1000Micros: bigint): bigint {
  const numerator = BigInt(tokens) * pricePer1000Micros;
  return (numerator + 500n) / 1000n;
}
