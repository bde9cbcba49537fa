// What an ingestion's events change: its row (files, state, counts, error). project() hands these events here; the
// same handler feeds the inline projector and replay.
import type { ProjectableEvent } from "../../domain/events.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";

type IngestionEvent = Extract<
  ProjectableEvent,
  { type: "IngestionStarted" | "IngestionCompleted" | "IngestionFailed" }
>;

export function projectIngestion(e: IngestionEvent, read: ProjectionReader): Change[] {
  if (e.type === "IngestionStarted") {
    const d = e.data;
    return [
      {
        table: "ingestions",
        row: {
          ingestion_id: d.ingestionId,
          collection: d.collection,
          mode: d.mode,
          files: [...d.files],
          state: "running",
          started_at: e.recordedAt,
          finished_at: null,
          error: null,
          counts: null,
        },
      },
    ];
  }
  const row = read.ingestion(e.data.ingestionId);
  if (!row) throw new Error(`projection: no ingestion ${e.data.ingestionId}`);
  const failed = e.type === "IngestionFailed";
  return [
    {
      table: "ingestions",
      row: Object.assign(row, {
        state: failed ? "failed" : "completed",
        finished_at: e.recordedAt,
        error: failed ? e.data.error : null,
        counts: e.data.counts,
      }),
    },
  ];
}
