// The journal requests clients sent, grouped by journal for operators deciding what to add (read from the events).
import type { Queryable } from "../../eventstore/db.js";

/** Requests for one journal, for operators deciding what to add. */
interface JournalRequestSummary {
  issn: string | null;
  title: string | null;
  requests: number;
  /** distinct organizations that asked */
  organizations: number;
  firstRequestedAt: string;
  lastRequestedAt: string;
  /** up to ten of the notes sent with the requests */
  notes: string[];
}

/** Every journal request, grouped by journal (canonical ISSN, else the lower-cased title), most requested first. */
export async function journalRequestSummaries(db: Queryable): Promise<JournalRequestSummary[]> {
  const rows = await db.query<{
    data: { orgId: string; title: string | null; issn: string | null; note: string | null };
    recorded_at: Date | string;
  }>(`SELECT data, recorded_at FROM events WHERE type = 'JournalRequested' ORDER BY position`);
  const byJournal = new Map<string, { summary: JournalRequestSummary; orgs: Set<string> }>();
  for (const { data, recorded_at } of rows) {
    const key = data.issn ?? `title:${(data.title ?? "").toLowerCase()}`;
    const at = new Date(recorded_at).toISOString();
    const entry = byJournal.get(key) ?? {
      summary: {
        issn: data.issn,
        title: data.title,
        requests: 0,
        organizations: 0,
        firstRequestedAt: at,
        lastRequestedAt: at,
        notes: [],
      },
      orgs: new Set<string>(),
    };
    entry.orgs.add(data.orgId);
    const s = entry.summary;
    Object.assign(s, {
      requests: s.requests + 1,
      organizations: entry.orgs.size,
      lastRequestedAt: at,
      title: s.title ?? data.title,
    });
    if (data.note && s.notes.length < 10) s.notes.push(data.note);
    byJournal.set(key, entry);
  }
  return [...byJournal.values()]
    .map((e) => e.summary)
    .sort((a, b) => b.requests - a.requests || a.firstRequestedAt.localeCompare(b.firstRequestedAt));
}
