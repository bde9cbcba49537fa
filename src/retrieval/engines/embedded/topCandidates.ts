// Bounded selection of the k best ordinals by score, ties broken by chunk id, without per-candidate allocation.

/** A min-heap of at most `capacity` entries whose root is the worst kept candidate. */
export class TopCandidates {
  private readonly ordinals: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    readonly capacity: number,
    /** chunk id of an ordinal, for the tie-break (smaller id wins) */
    private readonly idOf: (ordinal: number) => string,
  ) {
    this.ordinals = new Int32Array(Math.max(capacity, 0));
    this.scores = new Float64Array(Math.max(capacity, 0));
  }

  /** true when `a` ranks below `b` */
  private worse(scoreA: number, ordinalA: number, scoreB: number, ordinalB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    return this.idOf(ordinalA) > this.idOf(ordinalB);
  }

  /** The score a newcomer must reach to be considered (equal scores are decided by id). */
  threshold(): number {
    return this.size < this.capacity ? -Infinity : this.scores[0];
  }

  offer(ordinal: number, score: number): void {
    if (this.capacity <= 0) return;
    if (this.size < this.capacity) {
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!this.worse(score, ordinal, this.scores[parent], this.ordinals[parent])) break;
        this.scores[at] = this.scores[parent];
        this.ordinals[at] = this.ordinals[parent];
        at = parent;
      }
      this.scores[at] = score;
      this.ordinals[at] = ordinal;
      return;
    }
    if (!this.worse(this.scores[0], this.ordinals[0], score, ordinal)) return;
    let at = 0;
    const size = this.size;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (
        right < size &&
        this.worse(this.scores[right], this.ordinals[right], this.scores[left], this.ordinals[left])
      ) {
        child = right;
      }
      if (!this.worse(this.scores[child], this.ordinals[child], score, ordinal)) break;
      this.scores[at] = this.scores[child];
      this.ordinals[at] = this.ordinals[child];
      at = child;
    }
    this.scores[at] = score;
    this.ordinals[at] = ordinal;
  }

  /** Kept candidates, best first. */
  drain(): Array<{ ordinal: number; score: number }> {
    const entries: Array<{ ordinal: number; score: number }> = [];
    for (let i = 0; i < this.size; i++) entries.push({ ordinal: this.ordinals[i], score: this.scores[i] });
    entries.sort((a, b) => (this.worse(a.score, a.ordinal, b.score, b.ordinal) ? 1 : -1));
    return entries;
  }
}
