// Loading a retraction list: reading the operator's files (a Retraction Watch CSV or open-retractions JSON lines) and
// recording what they add to the list in force as one RetractionsLoaded event; a bad file is 422 and changes nothing.
import { runStreamCommand } from "../../projections/streamCommand.js";
import { RETRACTIONS_STREAM, type Actor } from "../domain/events.js";
import { Rejection } from "../domain/rejection.js";
import { readStream } from "../eventstore/eventStore.js";
import { sameNotice, type IntegrityNotice } from "../domain/integrity.js";
import { readLines, SourceContentError } from "./sourceFiles.js";
import { checkOperatorFile, OperatorFileError } from "./operatorFiles.js";
import {
  mergeUpdateLists,
  readOpenRetractionsList,
  readRetractionWatchList,
  RETRACTION_WATCH_COLUMNS,
  retractionWatchColumn,
  type UpdateList,
} from "./retractions.js";
import { fold, refresh, type RetractionsContext } from "./retractionsInForce.js";

export interface RetractionsLoad {
  /** the stream's version after the load: the list's version */
  version: number;
  files: string[];
  /** retracted works the files list */
  listed: number;
  /** of those, the ones no earlier list had: excluded from results from now on */
  newlyRetracted: number;
  loadedAt: string;
}

/**
 * One file's notices, by its format: a ".csv" is a Retraction Watch export (headers in any case: `OriginalPaperDOI` or
 * `originalpaperdoi`), anything else JSON lines of open-retractions records (".gz" gunzipped). The file passes the
 * operator-file guard (relative, inside the data root once links are resolved, a regular file); one that does not, that
 * does not parse, or that names no work is 422 naming it and why, never its text. Besides the retracted works, every
 * notice of any kind (corrections, expressions of concern) is read: each work's integrity follows them.
 */
async function readRetractionFile(dataRoot: string, file: string): Promise<UpdateList> {
  const refuse = (reason: string) =>
    new Rejection(
      "VALIDATION_ERROR",
      `retraction list "${file}" cannot be read: ${reason}. Give a Retraction Watch CSV or open-retractions ` +
        "JSON lines, named relative to the data root (DATA_ROOT) or uploaded with PUT /admin/v1/uploads/{name}; " +
        "nothing was loaded",
      { file },
    );
  try {
    const path = await checkOperatorFile(dataRoot, file);
    const withoutPath = (message: string) => message.split(`${path}: `).join("").split(path).join(file);
    try {
      let list: UpdateList;
      if (/\.csv(\.gz)?$/i.test(file)) {
        if (file.endsWith(".gz")) throw new SourceContentError("a Retraction Watch CSV is read uncompressed");
        for await (const header of readLines(path)) {
          const columns = header.split(",").map((c) => retractionWatchColumn(c.trim().replace(/^"|"$/g, "")));
          const missing = RETRACTION_WATCH_COLUMNS.filter((c) => !columns.includes(c));
          const named = missing.map((c) => (c === "originalpaperdoi" ? "OriginalPaperDOI" : "RetractionNature"));
          if (missing.length > 0)
            throw new SourceContentError(
              `not a Retraction Watch CSV: its first line has no ${named.join(" or ")} column`,
            );
          break;
        }
        list = await readRetractionWatchList(path);
      } else {
        list = await readOpenRetractionsList(path);
        if (list.retracted.size === 0 && list.updates.size === 0)
          throw new SourceContentError("no record has an identifier.doi with an update, so the list names no work");
      }
      return list;
    } catch (err) {
      if (err instanceof SourceContentError) throw refuse(withoutPath(err.message));
      const code = (err as NodeJS.ErrnoException).code;
      if (typeof code === "string" && code.startsWith("Z_")) throw refuse("not a gzip file");
      if (typeof code === "string" && code.startsWith("CSV_"))
        throw refuse(`not a well-formed CSV (${code.toLowerCase().replace(/^csv_/, "").replace(/_/g, " ")})`);
      throw err;
    }
  } catch (err) {
    if (err instanceof OperatorFileError) throw refuse(err.reason);
    throw err;
  }
}

/** Reads the files and records what they add to the list in force (the loading process follows it at once). */
export async function loadRetractions(
  ctx: RetractionsContext,
  files: readonly string[],
  actor: Actor,
  requestId?: string,
): Promise<RetractionsLoad> {
  const { deps, state, clock } = ctx;
  if (files.length === 0)
    throw new Rejection("VALIDATION_ERROR", "files must name at least one retraction list", { field: "files" });
  const lists: UpdateList[] = [];
  // one at a time: each file is opened only once the one before was read
  for (const f of files) lists.push(await readRetractionFile(deps.dataRoot, f));
  const read = mergeUpdateLists(lists);
  const listed = read.retracted;
  const shippedList = await ctx.shippedLists();
  const base = shippedList.retracted;
  await refresh(ctx, true);
  // which of the works this load adds are indexed anywhere: asked of the engine before the append's transaction
  const candidates = [...listed.values()].filter((n) => !base.has(n.doi) && !state.added.has(n.doi));
  const held = deps.heldDois ? await deps.heldDois(candidates.map((n) => n.doi)) : undefined;
  const events = await runStreamCommand(
    deps.db,
    clock,
    RETRACTIONS_STREAM,
    actor,
    async (tx) => {
      const [row] = await tx.query<{ v: number | null }>(
        "SELECT max(stream_version) AS v FROM events WHERE stream_id = $1",
        [RETRACTIONS_STREAM],
      );
      const version = row?.v ?? 0;
      if (version > state.version) fold(ctx, await readStream(tx, RETRACTIONS_STREAM));
      const notices = [...listed.values()].filter((n) => !base.has(n.doi) && !state.added.has(n.doi));
      // a work another load added meanwhile was not asked about: it counts as held (excluded), the safe side
      const asked = new Set(candidates.map((c) => c.doi));
      const heldNow = held ? notices.filter((n) => held.has(n.doi) || !asked.has(n.doi)).map((n) => n.doi) : undefined;
      // the notices of every kind the lists in force do not hold yet (each work's integrity follows them at once)
      const known = (doi: string, n: IntegrityNotice) =>
        [...(shippedList.updates.get(doi) ?? []), ...(state.addedUpdates.get(doi) ?? [])].some((k) => sameNotice(k, n));
      const updates = [...read.updates].flatMap(([doi, list]) =>
        list.filter((n) => !known(doi, n)).map((n) => ({ work: doi, ...n })),
      );
      return {
        version,
        events: [
          {
            type: "RetractionsLoaded",
            data: {
              files: [...files],
              listed: listed.size,
              newlyRetracted: notices.length,
              notices,
              ...(heldNow ? { held: heldNow } : {}),
              ...(updates.length > 0 ? { updates } : {}),
            },
          },
        ],
      };
    },
    { requestId },
  );
  fold(ctx, events);
  const e = events[0]!;
  if (e.type !== "RetractionsLoaded") throw new Error("retractions load was not recorded");
  return {
    version: e.streamVersion,
    files: e.data.files,
    listed: e.data.listed,
    newlyRetracted: e.data.newlyRetracted,
    loadedAt: e.recordedAt,
  };
}
