// The catalogue's free events: a catalogue answer given and a journal requested, each on its own new stream.
import type { Db } from "../../eventstore/db.js";
import { decideCatalogue, type CatalogueCommand } from "../../domain/discoveryFacts.js";
import { catalogueAnswerStream, journalRequestStream, type Actor, type StoredEvent } from "../../domain/events.js";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { newId } from "../accounts/apiKeys.js";

export interface JournalRequest {
  id: string;
  title: string | null;
  issn: string | null;
  note: string | null;
  recordedAt: string;
}

export function createCatalogueEvents(db: Db, clock: () => Date = () => new Date()) {
  /** A catalogue fact on its own new stream: appended and projected under the append lock like every event. */
  function runCatalogueCommand(
    streamId: string,
    actor: Actor,
    command: CatalogueCommand,
    requestId?: string,
  ): Promise<StoredEvent[]> {
    const events = decideCatalogue(command);
    return runStreamCommand(db, clock, streamId, actor, async () => ({ version: 0, events }), { requestId });
  }

  return {
    /** The free event of a catalogue answer, with the key as actor. */
    async recordCatalogueAnswer(
      answer: Omit<Extract<CatalogueCommand, { type: "RecordCatalogueAnswer" }>, "type">,
      requestId?: string,
    ): Promise<void> {
      await runCatalogueCommand(
        catalogueAnswerStream(answer.queryId),
        { kind: "key", id: answer.keyId },
        { type: "RecordCatalogueAnswer", ...answer },
        requestId,
      );
    },

    /** A journal request (free); its id is the stream's, so the event says which request it is. */
    async requestJournal(
      request: Omit<Extract<CatalogueCommand, { type: "RequestJournal" }>, "type" | "requestId">,
      requestId?: string,
    ): Promise<JournalRequest> {
      const id = newId("jr");
      const [event] = await runCatalogueCommand(
        journalRequestStream(id),
        { kind: "key", id: request.keyId },
        { type: "RequestJournal", requestId: id, ...request },
        requestId,
      );
      if (!event || event.type !== "JournalRequested") throw new Error("journal request was not recorded");
      return {
        id,
        title: event.data.title,
        issn: event.data.issn,
        note: event.data.note,
        recordedAt: event.recordedAt,
      };
    },
  };
}
