// A terminal progress bar (cli-progress) for ingestion, driven by the pipeline's onProgress callback.
import cliProgress from 'cli-progress';
import type { IngestProgress } from './ingestCollection.js';

export interface IngestProgressBar {
  onProgress: (progress: IngestProgress) => void;
  stop: () => void;
}

/** One bar per collection's indexing phase; the reading phase is reported as a count on the same line. */
export function createIngestProgressBar(stream: NodeJS.WritableStream = process.stderr): IngestProgressBar {
  let bar: cliProgress.SingleBar | null = null;
  let current = '';
  const stop = (): void => {
    bar?.stop();
    bar = null;
  };
  return {
    onProgress(progress) {
      const label = `${progress.collection} ${progress.phase}`;
      if (label !== current) {
        stop();
        current = label;
        bar = new cliProgress.SingleBar(
          {
            stream,
            format:
              progress.total === null
                ? `${progress.collection.padEnd(20)} reading   {value} documents`
                : `${progress.collection.padEnd(20)} indexing  [{bar}] {value}/{total} chunks | {eta_formatted} left`,
            hideCursor: true,
            // logs and CI capture stderr without a terminal: still print a line every few seconds
            noTTYOutput: true,
            notTTYSchedule: 5000,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(progress.total ?? 0, progress.done);
      }
      bar?.update(progress.done);
    },
    stop,
  };
}
