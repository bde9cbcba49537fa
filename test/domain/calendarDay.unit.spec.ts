// A day as clients write it: the pattern, and a day that exists.
import { describe, expect, it } from "vitest";
import { isCalendarDay } from "../../src/domain/calendarDay.js";

describe("isCalendarDay", () => {
  it("takes a day that exists, leap days included", () => {
    expect(["2026-12-02", "2024-02-29", "2000-02-29", "1999-12-31"].map(isCalendarDay)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("refuses a day or month that does not exist, and any other form", () => {
    const refused = [
      "2026-02-31",
      "2026-02-29",
      "1900-02-29",
      "2026-13-01",
      "2026-00-10",
      "2026-1-01",
      "2026-12-02T00",
    ];
    expect(refused.filter(isCalendarDay)).toEqual([]);
    expect(["", "tomorrow", "02/12/2026"].filter(isCalendarDay)).toEqual([]);
  });
});
