// Multivariate logistic regression by Newton's method with a small L2 penalty, on standardized features; plain TS.

export interface LogisticFit {
  intercept: number;
  /** on the standardized scale */
  weights: number[];
  means: number[];
  scales: number[];
}

export interface Sample {
  x: number[];
  y: 0 | 1;
  /** weight of the sample in the likelihood (default 1) */
  w?: number;
}

function solve(matrix: number[][], vector: number[]): number[] {
  const n = vector.length;
  const a = matrix.map((row, i) => [...row, vector[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row]![col]!) > Math.abs(a[pivot]![col]!)) pivot = row;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    if (Math.abs(p) < 1e-12) continue;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = a[row]![col]! / p;
      for (let k = col; k <= n; k++) a[row]![k]! -= factor * a[col]![k]!;
    }
  }
  return a.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
}

export function fitLogistic(samples: readonly Sample[], l2 = 1e-2, iterations = 50): LogisticFit {
  const d = samples[0]!.x.length;
  const total = samples.reduce((s, r) => s + (r.w ?? 1), 0);
  const means = Array.from({ length: d }, (_, k) => samples.reduce((s, r) => s + (r.w ?? 1) * r.x[k]!, 0) / total);
  const scales = means.map(
    (m, k) => Math.sqrt(samples.reduce((s, r) => s + (r.w ?? 1) * (r.x[k]! - m) ** 2, 0) / total) || 1,
  );
  const rows = samples.map((s) => [1, ...s.x.map((v, k) => (v - means[k]!) / scales[k]!)]);
  let beta = new Array<number>(d + 1).fill(0);
  for (let it = 0; it < iterations; it++) {
    const gradient = new Array<number>(d + 1).fill(0);
    const hessian = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    rows.forEach((x, i) => {
      const z = x.reduce((s, v, k) => s + v * beta[k]!, 0);
      const p = 1 / (1 + Math.exp(-z));
      const weight = samples[i]!.w ?? 1;
      const w = weight * Math.max(p * (1 - p), 1e-9);
      const r = weight * (samples[i]!.y - p);
      for (let a = 0; a <= d; a++) {
        gradient[a]! += r * x[a]!;
        for (let b = a; b <= d; b++) hessian[a]![b]! += w * x[a]! * x[b]!;
      }
    });
    for (let a = 0; a <= d; a++) {
      for (let b = 0; b < a; b++) hessian[a]![b] = hessian[b]![a]!;
      if (a > 0) {
        gradient[a]! -= l2 * total * beta[a]!;
        hessian[a]![a]! += l2 * total;
      }
    }
    const step = solve(hessian, gradient);
    beta = beta.map((b, k) => b + step[k]!);
    if (step.reduce((s, v) => s + Math.abs(v), 0) < 1e-8) break;
  }
  return { intercept: beta[0]!, weights: beta.slice(1), means, scales };
}

export function predict(fit: LogisticFit, x: readonly number[]): number {
  let z = fit.intercept;
  for (let k = 0; k < fit.weights.length; k++) z += fit.weights[k]! * ((x[k]! - fit.means[k]!) / fit.scales[k]!);
  return 1 / (1 + Math.exp(-z));
}
