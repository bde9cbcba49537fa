// Ingestion progress a person can read, in a terminal (one line rewritten in place) or in a log (a line every few
// seconds): per collection, the documents and chunks done out of the total, the rate, and when it should be done as a
// clock time. Counts only go up, whatever order the batches report in; nothing is shown that is not known yet.
import type { IngestionProgressView, IngestionStatus } from "./ingestions.js";

interface ProgressCount {
  done: number;
  /** null while it is not known (the source is still being read) */
  total: number | null;
}

interface ProgressSnapshot {
  collection: string;
  documents?: ProgressCount;
  chunks?: ProgressCount;
}

const number = (n: number): string => n.toLocaleString("en-US");

function duration(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

const clock = (at: Date): string => at.toISOString().slice(11, 19);

function countText(count: ProgressCount, unit: string): string {
  return count.total !== null && count.total > 0
    ? `${number(count.done)}/${number(count.total)} ${unit}`
    : `${number(count.done)} ${unit}`;
}

/**
 * One progress line. `elapsedSeconds` is the time since the collection started; the rate and the finish time are
 * given only once something is done and the total is known, so a line never reads NaN, Infinity or "/0".
 */
export function progressLine(snapshot: ProgressSnapshot, elapsedSeconds: number, now: Date): string {
  const parts: string[] = [];
  const { documents, chunks } = snapshot;
  if (documents && documents.total === null && documents.done === 0 && !chunks?.done)
    return `${snapshot.collection}: reading the source`;
  if (documents) parts.push(countText(documents, "documents"));
  if (chunks) parts.push(countText(chunks, "chunks"));
  // the rate and the finish time follow the count whose total is known: documents, else chunks
  const paced = documents?.total
    ? { count: documents, unit: "documents" }
    : chunks?.total
      ? { count: chunks, unit: "chunks" }
      : undefined;
  let line = `${snapshot.collection}: ${parts.join(", ")}`;
  if (paced && paced.count.done > 0 && elapsedSeconds > 0) {
    const rate = paced.count.done / elapsedSeconds;
    line += ` · ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} ${paced.unit}/s`;
    const left = Math.round((paced.count.total! - paced.count.done) / rate);
    if (left > 0) line += ` · done about ${clock(new Date(now.getTime() + left * 1000))} (in ${duration(left)})`;
  }
  return line;
}

export interface ProgressReporter {
  update(snapshot: ProgressSnapshot): void;
  /** the collection's last line, with what it took */
  finish(collection: string, summary: string): void;
  stop(): void;
}

interface ProgressReporterOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** a log (no terminal) gets a line at most this often per collection, and at each finish (default 5 s) */
  logIntervalMs?: number;
  now?: () => Date;
}

/** Keeps the highest count seen per collection and prints it: in place on a terminal, as periodic lines in a log. */
export function createProgressReporter(options: ProgressReporterOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  const now = options.now ?? (() => new Date());
  const logIntervalMs = options.logIntervalMs ?? 5000;
  const state = new Map<string, { snapshot: ProgressSnapshot; startedAt: number; printedAt: number }>();
  let openLine = false;

  const higher = (before: ProgressCount | undefined, after: ProgressCount | undefined): ProgressCount | undefined =>
    after ? { done: Math.max(before?.done ?? 0, after.done), total: after.total ?? before?.total ?? null } : before;

  function print(line: string): void {
    if (tty) {
      stream.write(`\r\x1b[2K${line}`);
      openLine = true;
    } else stream.write(`${line}\n`);
  }

  return {
    update(snapshot) {
      const at = now().getTime();
      const known = state.get(snapshot.collection) ?? {
        snapshot: { collection: snapshot.collection },
        startedAt: at,
        printedAt: -Infinity,
      };
      known.snapshot = {
        collection: snapshot.collection,
        documents: higher(known.snapshot.documents, snapshot.documents),
        chunks: higher(known.snapshot.chunks, snapshot.chunks),
      };
      state.set(snapshot.collection, known);
      if (!tty && at - known.printedAt < logIntervalMs) return;
      known.printedAt = at;
      print(progressLine(known.snapshot, (at - known.startedAt) / 1000, new Date(at)));
    },
    finish(collection, summary) {
      const known = state.get(collection);
      const seconds = known ? (now().getTime() - known.startedAt) / 1000 : 0;
      if (openLine) stream.write("\r\x1b[2K");
      openLine = false;
      stream.write(`${collection}: ${summary} in ${duration(seconds)}\n`);
      state.delete(collection);
    },
    stop() {
      if (openLine) stream.write("\n");
      openLine = false;
    },
  };
}

type DocumentCounts = Pick<
  IngestionStatus,
  | "documentsRead"
  | "documentsAdded"
  | "documentsUpdated"
  | "documentsUnchanged"
  | "documentsDeleted"
  | "documentsExcluded"
  | "chunksIndexed"
>;

/** The documents an ingestion is done with: added, updated, unchanged, deleted or excluded. */
const documentsDone = (c: DocumentCounts): number =>
  c.documentsAdded + c.documentsUpdated + c.documentsUnchanged + c.documentsDeleted + c.documentsExcluded;

/**
 * An ingestion's status as a progress snapshot: documents done of those read (unknown until staged), chunks indexed.
 */
export function statusSnapshot(status: Pick<IngestionStatus, "collection"> & DocumentCounts): ProgressSnapshot {
  return {
    collection: status.collection,
    documents: {
      done: documentsDone(status),
      total: status.documentsRead || null,
    },
    chunks: { done: status.chunksIndexed, total: null },
  };
}

const perSecond = (n: number, seconds: number): number | null =>
  n > 0 && seconds > 0 ? Math.round((n / seconds) * 10) / 10 : null;

/**
 * A running ingestion's progress from the workflow's counts (updated per committed batch) and its start: what is done,
 * the rate since it started, and the finish at that rate. Pure.
 */
export function ingestionProgressOf(
  progress: {
    phase: IngestionProgressView["phase"];
    batches: number | null;
    batchesDone: number;
    counts: DocumentCounts;
  },
  startedAt: string,
  now: Date,
): IngestionProgressView {
  const c = progress.counts;
  const done = documentsDone(c);
  const total = progress.phase === "reading" ? null : c.documentsRead;
  const seconds = (now.getTime() - Date.parse(startedAt)) / 1000;
  const left = total !== null && done > 0 && seconds > 0 ? (Math.max(0, total - done) * seconds) / done : null;
  return {
    phase: progress.phase,
    batches: progress.batches,
    batchesDone: progress.batchesDone,
    documentsDone: done,
    documentsTotal: total,
    chunksIndexed: c.chunksIndexed,
    documentsPerSecond: perSecond(done, seconds),
    chunksPerSecond: perSecond(c.chunksIndexed, seconds),
    estimatedFinishAt: left === null ? null : new Date(now.getTime() + Math.round(left * 1000)).toISOString(),
  };
}

/** The CLI's line for `ingestion show` of a running ingestion: its progress in words. */
export function ingestionProgressText(collection: string, p: IngestionProgressView): string {
  if (p.phase === "reading") return `${collection}: reading the source`;
  const parts = [
    `${p.documentsDone.toLocaleString("en-US")}/${(p.documentsTotal ?? 0).toLocaleString("en-US")} documents`,
    `${p.chunksIndexed.toLocaleString("en-US")} chunks indexed`,
    `batch ${p.batchesDone}/${p.batches ?? "?"}`,
  ];
  if (p.documentsPerSecond !== null) parts.push(`${p.documentsPerSecond} documents/s`);
  if (p.chunksPerSecond !== null) parts.push(`${p.chunksPerSecond} chunks/s`);
  parts.push(p.estimatedFinishAt ? `done about ${p.estimatedFinishAt}` : "no estimate until a batch commits");
  return `${collection} (${p.phase}): ${parts.join(" · ")}`;
}
