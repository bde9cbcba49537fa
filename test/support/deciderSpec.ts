// Given/when/then for any decider, after emmett's DeciderSpecification without the framework: given the events so far
// (folded by the decider's evolve from its initial state), when a command, then the events decide returns, or its
// refusal.
import { expect } from "vitest";
import { Rejection } from "../../src/domain/rejection.js";

export interface Decider<State, Command, Event> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

export interface Outcome<Event> {
  /** the refusal's code, or 'accepted' when decide returned */
  code: string;
  /** the Rejection decide threw, if it refused */
  refusal: Rejection | undefined;
  /** the events decide returned; reading them after a refusal fails the test with the refusal's message */
  events: Event[];
  then(expected: Event[]): void;
  /** decide returned events matching these (toMatchObject: only the fields named are checked) */
  thenMatches(expected: unknown[]): void;
  /** decide changed nothing: no events */
  thenNothing(): void;
  /** decide refused with this code; the Rejection is returned for its message and details */
  thenRefuses(code: string): Rejection;
}

export interface Given<State, Command, Event> {
  /** the state the given events fold to (what decide is handed) */
  state: State;
  when(command: Command): Outcome<Event>;
}

/** `const given = deciderSpec(decider)`, then `given([...events]).when(command).then([...events])`. */
export function deciderSpec<State, Command, Event>(
  decider: Decider<State, Command, Event>,
): (events?: readonly Event[]) => Given<State, Command, Event> {
  return (events = []) => {
    const state = events.reduce(decider.evolve, decider.initialState());
    return { state, when: (command) => outcomeOf(() => decider.decide(command, state)) };
  };
}

function outcomeOf<Event>(run: () => Event[]): Outcome<Event> {
  let decided: Event[] | undefined;
  let refusal: Rejection | undefined;
  try {
    decided = run();
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    refusal = err;
  }
  const events = (): Event[] => {
    if (refusal) throw new Error(`expected events, but decide refused: ${refusal.code} ${refusal.message}`);
    return decided!;
  };
  return {
    code: refusal?.code ?? "accepted",
    refusal,
    get events() {
      return events();
    },
    then(expected) {
      // an outcome is not a promise: awaiting or returning it from a test would call this with callbacks
      if (typeof expected === "function")
        throw new Error("a decider outcome is synchronous: do not await or return it");
      expect(events()).toEqual(expected);
    },
    thenMatches: (expected) => expect(events()).toMatchObject(expected),
    thenNothing: () => expect(events()).toEqual([]),
    thenRefuses(code) {
      expect(
        refusal?.code ??
          `accepted with ${JSON.stringify(decided, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`,
      ).toBe(code);
      return refusal!;
    },
  };
}
