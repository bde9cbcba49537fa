// The given/when/then helper itself: it folds the given events in order, and each `then` fails when the decider
// answered otherwise.
import { describe, expect, it } from "vitest";
import { Rejection } from "../../src/domain/rejection.js";
import { deciderSpec } from "./deciderSpec.js";

// a counter that refuses to pass 2: events are numbers added to the state
const given = deciderSpec<number, number, number>({
  initialState: () => 0,
  evolve: (state, event) => state + event,
  decide: (command, state) => {
    if (state + command > 2) throw new Rejection("VALIDATION_ERROR", `${state} + ${command} passes 2`);
    return command === 0 ? [] : [command];
  },
});

describe("deciderSpec", () => {
  it("folds the given events into the state decide is handed", () => {
    expect(given([1, 1]).state).toBe(2);
    expect(given().state).toBe(0);
    given([1]).when(1).then([1]);
    given([1]).when(0).thenNothing();
    expect(given([1, 1]).when(1).thenRefuses("VALIDATION_ERROR").message).toBe("2 + 1 passes 2");
  });

  it("fails a then that does not hold", () => {
    expect(() => given([1]).when(1).then([2])).toThrow();
    expect(() => given([1]).when(1).thenNothing()).toThrow();
    expect(() => given([1]).when(1).thenRefuses("VALIDATION_ERROR")).toThrow(/accepted with \[1\]/);
    expect(() => given([2]).when(1).then([1])).toThrow(/decide refused: VALIDATION_ERROR 2 \+ 1 passes 2/);
    expect(() => given([2]).when(1).thenRefuses("CONFLICT")).toThrow();
    expect(given([2]).when(1).code).toBe("VALIDATION_ERROR");
    expect(given([]).when(1).code).toBe("accepted");
  });

  it("is not a promise: awaiting an outcome fails loudly instead of passing", async () => {
    await expect((async () => await (given([]).when(1) as unknown as Promise<unknown>))()).rejects.toThrow(
      /synchronous/,
    );
  });
});
