// What a pure rule answered: the Rejection's code, or 'accepted' when it returned.
import { Rejection } from "../../src/domain/rejection.js";

export function rejectionCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof Rejection) return err.code;
    throw err;
  }
  return "accepted";
}
