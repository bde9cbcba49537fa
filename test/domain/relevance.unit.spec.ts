import { describe, expect, it } from "vitest";
import { meetsMinRelevance } from "../../src/domain/relevance.js";

describe("min_relevance", () => {
  it("counts a row at or above the threshold, not one below it", () => {
    expect(meetsMinRelevance(0.5, 0.5)).toBe(true);
    expect(meetsMinRelevance(0.9, 0.5)).toBe(true);
    expect(meetsMinRelevance(0.4999, 0.5)).toBe(false);
  });

  it("never counts a row without a relevance, even at a threshold of 0", () => {
    expect(meetsMinRelevance(null, 0)).toBe(false);
    expect(meetsMinRelevance(null, 0.3)).toBe(false);
  });

  it("counts every scored row at a threshold of 0, and a NaN relevance never", () => {
    expect(meetsMinRelevance(0, 0)).toBe(true);
    expect(meetsMinRelevance(Number.NaN, 0)).toBe(false);
  });
});
