// What an assisted search shows its caller while it runs (the `progress` query): written only through the steps named
// here, so the workflow reads as the search it runs and this file as what the caller sees of it.
import { setHandler } from "@temporalio/workflow";
import { acceptDeliveryProof } from "./assistedDelivery.js";
import type { QueryUnderstanding } from "../src/reasoner/port.js";
import { progressQuery, type AssistedProgress } from "./assistedTypes.js";

export class AssistedProgressBoard {
  /** the state the query answers (and the delivery step reads and writes) */
  readonly state: AssistedProgress;

  /** Answers the progress query and accepts proof of delivery from now on. */
  constructor(keyId: string) {
    this.state = {
      phase: "understanding",
      keyId,
      round: 0,
      searchesRun: 0,
      candidatesVerified: 0,
      verified: 0,
      clarification: null,
      understanding: null,
      clarificationExpiresAt: null,
      delivery: null,
    };
    setHandler(progressQuery, () => this.state);
    acceptDeliveryProof(this.state);
  }

  get awaitingClarification(): boolean {
    return this.state.phase === "awaiting_clarification";
  }

  understood(understanding: QueryUnderstanding): void {
    this.state.understanding = understanding;
  }

  asking(clarification: { question: string; reason: string }, expiresAt: number): void {
    this.state.phase = "awaiting_clarification";
    this.state.clarification = clarification;
    this.state.clarificationExpiresAt = expiresAt;
  }

  answered(): void {
    this.state.clarification = null;
    this.state.clarificationExpiresAt = null;
    this.state.phase = "understanding";
  }

  searching(round: number): void {
    this.state.round = round;
    this.state.phase = "searching";
  }

  searched(searches: number): void {
    this.state.searchesRun += searches;
  }

  verifying(): void {
    this.state.phase = "verifying";
  }

  /** after a round's judging: the candidates it judged, and the rows verified over all rounds */
  judged(candidates: number, verifiedRows: number): void {
    this.state.candidatesVerified += candidates;
    this.state.verified = verifiedRows;
  }

  charging(): void {
    this.state.phase = "charging";
  }

  done(): void {
    this.state.phase = "done";
  }
}
