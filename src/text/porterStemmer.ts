// Lucene's PorterStemmer (behind OpenSearch's `porter_stem` and `english` analyzer), ported step for step:
// it differs from other Porter implementations on short words ("ies" -> "i", "eed" stays), and term parity needs that.

const A = 0x61;
const E = 0x65;
const I = 0x69;
const O = 0x6f;
const U = 0x75;
const Y = 0x79;
const S = 0x73;
const L = 0x6c;
const Z = 0x7a;
const W = 0x77;
const X = 0x78;

/** Mutable state of one stemming run, as in Lucene: b[k0..k] is the word, j marks a suffix boundary. */
class PorterRun {
  b: number[] = [];
  j = 0;
  k = 0;
  k0 = 0;

  cons(i: number): boolean {
    const ch = this.b[i];
    if (ch === A || ch === E || ch === I || ch === O || ch === U) return false;
    if (ch === Y) return i === this.k0 ? true : !this.cons(i - 1);
    return true;
  }

  /** number of consonant sequences between k0 and j */
  m(): number {
    let n = 0;
    let i = this.k0;
    for (;;) {
      if (i > this.j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > this.j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > this.j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  vowelInStem(): boolean {
    for (let i = this.k0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  doublec(j: number): boolean {
    if (j < this.k0 + 1) return false;
    if (this.b[j] !== this.b[j - 1]) return false;
    return this.cons(j);
  }

  cvc(i: number): boolean {
    if (i < this.k0 + 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b[i];
    return !(ch === W || ch === X || ch === Y);
  }

  ends(suffix: string): boolean {
    const length = suffix.length;
    const offset = this.k - length + 1;
    if (offset < this.k0) return false;
    for (let i = 0; i < length; i++) if (this.b[offset + i] !== suffix.charCodeAt(i)) return false;
    this.j = this.k - length;
    return true;
  }

  setTo(replacement: string): void {
    const offset = this.j + 1;
    for (let i = 0; i < replacement.length; i++) this.b[offset + i] = replacement.charCodeAt(i);
    this.k = this.j + replacement.length;
  }

  replaceIfMeasured(replacement: string): void {
    if (this.m() > 0) this.setTo(replacement);
  }

  /** plurals, -ed, -ing */
  step1(): void {
    const b = this.b;
    if (b[this.k] === S) {
      if (this.ends("sses")) this.k -= 2;
      else if (this.ends("ies")) this.setTo("i");
      else if (b[this.k - 1] !== S) this.k--;
    }
    if (this.ends("eed")) {
      if (this.m() > 0) this.k--;
    } else if ((this.ends("ed") || this.ends("ing")) && this.vowelInStem()) {
      this.k = this.j;
      if (this.ends("at")) this.setTo("ate");
      else if (this.ends("bl")) this.setTo("ble");
      else if (this.ends("iz")) this.setTo("ize");
      else if (this.doublec(this.k)) {
        const ch = b[this.k--];
        if (ch === L || ch === S || ch === Z) this.k++;
      } else if (this.m() === 1 && this.cvc(this.k)) this.setTo("e");
    }
  }

  /** terminal y to i when the stem has a vowel */
  step2(): void {
    if (this.ends("y") && this.vowelInStem()) this.b[this.k] = I;
  }

  /** double suffixes to single ones */
  step3(): void {
    if (this.k === this.k0) return;
    this.firstMatching(STEP3_RULES[String.fromCharCode(this.b[this.k - 1])]);
  }

  /** -ic-, -full, -ness */
  step4(): void {
    this.firstMatching(STEP4_RULES[String.fromCharCode(this.b[this.k])]);
  }

  /** Applies the first rule whose suffix matches (only that one, measured or not). */
  firstMatching(rules: ReadonlyArray<readonly [string, string]> | undefined): void {
    if (!rules) return;
    for (const [suffix, replacement] of rules) {
      if (this.ends(suffix)) {
        this.replaceIfMeasured(replacement);
        return;
      }
    }
  }

  /** -ant, -ence, ... in context <c>vcvc<v> */
  step5(): void {
    if (this.k === this.k0) return;
    const b = this.b;
    let matched: boolean;
    switch (String.fromCharCode(b[this.k - 1])) {
      case "a":
        matched = this.ends("al");
        break;
      case "c":
        matched = this.ends("ance") || this.ends("ence");
        break;
      case "e":
        matched = this.ends("er");
        break;
      case "i":
        matched = this.ends("ic");
        break;
      case "l":
        matched = this.ends("able") || this.ends("ible");
        break;
      case "n":
        matched = this.ends("ant") || this.ends("ement") || this.ends("ment") || this.ends("ent");
        break;
      case "o":
        matched = (this.ends("ion") && this.j >= 0 && (b[this.j] === S || b[this.j] === 0x74)) || this.ends("ou");
        break;
      case "s":
        matched = this.ends("ism");
        break;
      case "t":
        matched = this.ends("ate") || this.ends("iti");
        break;
      case "u":
        matched = this.ends("ous");
        break;
      case "v":
        matched = this.ends("ive");
        break;
      case "z":
        matched = this.ends("ize");
        break;
      default:
        matched = false;
    }
    if (matched && this.m() > 1) this.k = this.j;
  }

  /** final -e and -ll */
  step6(): void {
    this.j = this.k;
    if (this.b[this.k] === E) {
      const measure = this.m();
      if (measure > 1 || (measure === 1 && !this.cvc(this.k - 1))) this.k--;
    }
    if (this.b[this.k] === L && this.doublec(this.k) && this.m() > 1) this.k--;
  }
}

const STEP3_RULES: Record<string, ReadonlyArray<readonly [string, string]>> = {
  a: [
    ["ational", "ate"],
    ["tional", "tion"],
  ],
  c: [
    ["enci", "ence"],
    ["anci", "ance"],
  ],
  e: [["izer", "ize"]],
  l: [
    ["bli", "ble"],
    ["alli", "al"],
    ["entli", "ent"],
    ["eli", "e"],
    ["ousli", "ous"],
  ],
  o: [
    ["ization", "ize"],
    ["ation", "ate"],
    ["ator", "ate"],
  ],
  s: [
    ["alism", "al"],
    ["iveness", "ive"],
    ["fulness", "ful"],
    ["ousness", "ous"],
  ],
  t: [
    ["aliti", "al"],
    ["iviti", "ive"],
    ["biliti", "ble"],
  ],
  g: [["logi", "log"]],
};

const STEP4_RULES: Record<string, ReadonlyArray<readonly [string, string]>> = {
  e: [
    ["icate", "ic"],
    ["ative", ""],
    ["alize", "al"],
  ],
  i: [["iciti", "ic"]],
  l: [
    ["ical", "ic"],
    ["ful", ""],
  ],
  s: [["ness", ""]],
};

const run = new PorterRun();

/** The Porter stem of a lower-cased word, exactly as Lucene's PorterStemFilter produces it. */
export function stemPorter(word: string): string {
  const length = word.length;
  if (length <= 2) return word;
  const b = run.b;
  b.length = length;
  for (let i = 0; i < length; i++) b[i] = word.charCodeAt(i);
  run.k0 = 0;
  run.j = 0;
  run.k = length - 1;
  run.step1();
  run.step2();
  run.step3();
  run.step4();
  run.step5();
  run.step6();
  return String.fromCharCode(...b.slice(0, run.k + 1));
}
