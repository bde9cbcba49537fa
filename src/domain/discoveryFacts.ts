// Catalogue facts: an answer given from the catalogue and a journal a client asked for. Pure: decide(command) ->
// events.
import type { DomainEvent } from "./events.js";
import { Rejection } from "./rejection.js";
import { canonicalIssn } from "./identifiers.js";

export type CatalogueCommand =
  | {
      type: "RecordCatalogueAnswer";
      orgId: string;
      keyId: string;
      queryId: string;
      endpoint: string;
      intent: "sources" | "publishers" | "journals";
      topic: string | null;
      collections: string[];
    }
  | {
      type: "RequestJournal";
      orgId: string;
      keyId: string;
      requestId: string;
      title?: string | null;
      issn?: string | null;
      note?: string | null;
    };

const blankToNull = (s: string | null | undefined) =>
  s === undefined || s === null || s.trim() === "" ? null : s.trim();

export function decideCatalogue(command: CatalogueCommand): DomainEvent[] {
  switch (command.type) {
    case "RecordCatalogueAnswer": {
      const { orgId, keyId, queryId, endpoint, intent, topic, collections } = command;
      return [{ type: "CatalogueAnswered", data: { orgId, keyId, queryId, endpoint, intent, topic, collections } }];
    }
    case "RequestJournal": {
      const title = blankToNull(command.title);
      const rawIssn = blankToNull(command.issn);
      if (title === null && rawIssn === null)
        throw new Rejection("VALIDATION_ERROR", "send the title or the ISSN of the journal (or both)");
      const issn = rawIssn === null ? null : canonicalIssn(rawIssn);
      if (rawIssn !== null && issn === null)
        throw new Rejection("VALIDATION_ERROR", `issn: "${rawIssn}" is not an ISSN (NNNN-NNNC, hyphen optional)`);
      return [
        {
          type: "JournalRequested",
          data: {
            orgId: command.orgId,
            keyId: command.keyId,
            requestId: command.requestId,
            title,
            issn,
            note: blankToNull(command.note),
          },
        },
      ];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
}
