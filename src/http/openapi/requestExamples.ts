// The example of every request body in the OpenAPI document, per schema: realistic bodies on the demo catalogue
// (config/collections.json) that succeed as sent. Swagger's "Try it out" starts from them; test/http/openapiExamples
// sends each one to a running service, so a body schema without a working example fails there.

/**
 * One example (an OpenAPI Example Object). Extensions say what a test (or a person) must do first:
 * - `x-queryId-from`: "operationId/exampleName" whose answer's `queryId` replaces the placeholder `queryId` here;
 * - `x-after`: operationIds to run first on the same organization (e.g. credits before a refund).
 */
interface RequestExample {
  summary: string;
  description?: string;
  value: unknown;
  "x-queryId-from"?: string;
  "x-after"?: string[];
}

/** Stands for "the queryId of your earlier call": a real id looks like it; replace it with yours. */
const EARLIER_QUERY_ID = "0b6f4c6e-6f3a-4d7e-9a55-3c1d2e8f9a10";

/** The playground's two ticked rows of a preview, as its quote and its unlock both send them. */
const PLAYGROUND_TICKED_ROWS = {
  key: "key_3fa85f6457174562b3fc2c963f66afa6",
  queryId: EARLIER_QUERY_ID,
  row_1: "scifact:4983#0",
  row_2: "scifact:13734012#0",
};

/** Examples keyed by request schema name (NAMED_SCHEMAS in operation.ts), then by example name. */
export const REQUEST_EXAMPLES: Record<string, Record<string, RequestExample>> = {
  // search (API key)
  SearchRequest: {
    search: {
      summary: "Recent OpenAlex works on a question, with a date filter",
      value: {
        collection: "openalex-synergy",
        query: "emicizumab prophylaxis in hemophilia A with factor VIII inhibitors",
        limit: 5,
        filters: { publication_date: { gte: "2010" } },
      },
    },
    worthPaying: {
      summary: "Only rows worth paying for: one per document, relevance at least 0.02",
      description:
        "Rows below min_relevance are neither returned nor charged (belowMinRelevance counts them); " +
        "one_per_document keeps the best chunk of each document.",
      value: {
        collection: "clinical-digest",
        query: "randomized trial of blood pressure lowering",
        limit: 10,
        min_relevance: 0.02,
        one_per_document: true,
      },
    },
    mostCited: {
      summary: "The most cited relevant works first",
      description:
        "sort orders the candidates whose relevance passes min_relevance (0.2 unless sent) by citations, " +
        "relevance breaking ties; the response says how many it ordered. Send its nextCursor back as cursor, " +
        "with the same body, for the next page.",
      value: {
        collection: "openalex-synergy",
        query: "intrathecal baclofen for spasticity",
        sort: "cited_by_count",
        limit: 5,
      },
    },
    withinBudget: {
      summary: "At most 0.01 credits: the best rows that fit",
      description:
        "Rows are taken best first while their charge fits max_cost; withheldByMaxCost and nextRowCost say " +
        "what the cap held back.",
      value: { collection: "scifact", query: "vitamin D and bone fractures", limit: 10, max_cost: "0.010" },
    },
    moreLikeThis: {
      summary: "Works like a given one",
      description:
        "like instead of query: the works nearest this one (a result's doc_id, a DOI, pmid:NNN or an OpenAlex " +
        "W-id), itself excluded.",
      value: { collection: "openalex-synergy", like: { work: "W2125158795" }, limit: 5 },
    },
  },
  WebhookEndpointRequest: {
    endpoint: {
      summary: "Tell a receiver when an asynchronous assisted answer is ready",
      description:
        "Any public https URL of yours; its host must resolve to public addresses only. Keep the `secret` of " +
        "the answer.",
      value: {
        url: "https://93.184.215.14/hooks/litsearch",
        events: ["assisted.completed"],
        description: "Lab notebook",
      },
    },
  },
  AlertRequest: {
    onIngest: {
      summary: "New works on a topic, as they are ingested, at most 0.50 credits a run",
      description:
        "Each run sends the new works as `alert.matched` to every endpoint subscribed to it (name one with " +
        "`webhook`: its `we_…` id).",
      value: {
        query: "vitamin D and bone fractures",
        collection: "scifact",
        min_relevance: 0.3,
        schedule: "on_ingest",
        max_cost_per_run: "0.50",
      },
    },
  },
  NotificationSettingsRequest: {
    lowBalance: {
      summary: "Tell the webhooks when the balance falls below 5 credits",
      value: { balanceLowThreshold: "5.00" },
    },
  },
  CollectionSearchRequest: {
    search: {
      summary: "Trial reports with results in the clinical digest",
      value: {
        query: "randomized trial of blood pressure lowering",
        limit: 5,
        filters: { has_results: true },
        includeMetadata: true,
      },
    },
  },
  SearchPreviewRequest: {
    preview: {
      summary: "Free locked teasers from two collections",
      value: {
        collections: ["scifact", "openalex-synergy"],
        query: "aspirin and the risk of colorectal cancer",
        limit: 5,
      },
    },
  },
  UnlockRequest: {
    unlockAll: {
      summary: "Pay for every row of a preview",
      description: "Replace queryId with the queryId of your preview; resultIds null unlocks every row.",
      value: { queryId: EARLIER_QUERY_ID, resultIds: null },
      "x-queryId-from": "searchPreview/preview",
    },
    withinBudget: {
      summary: "Pay for the best rows of a preview that fit 0.005 credits",
      description:
        "The rows asked for (all, here) are bought in the preview's order while they fit maxCost; " +
        "withheldByMaxCost and nextRowCost say what it held back.",
      value: { queryId: EARLIER_QUERY_ID, maxCost: "0.005" },
      "x-queryId-from": "searchPreview/preview",
    },
  },
  AssistedSearchRequest: {
    question: {
      summary: "A specific question: planned, searched and verified; only verified rows are charged",
      value: {
        collection: "scifact",
        query: "Does vitamin D supplementation reduce fracture risk in older adults?",
        limit: 5,
        maxCost: "0.50",
      },
    },
    vague: {
      summary: "A vague query: answered with a clarification question, free",
      value: { collection: "scifact", query: "cancer" },
    },
  },
  AssistedAnswerRequest: {
    answer: {
      summary: "Answer the clarification question: the same run resumes",
      description: "Replace queryId with the queryId of the clarification_needed answer.",
      value: { queryId: EARLIER_QUERY_ID, answer: "immune checkpoint inhibitors in metastatic melanoma" },
      "x-queryId-from": "searchAssisted/vague",
    },
  },
  WorksBatchRequest: {
    batch: {
      summary: "A work by DOI, the same by PMID and by OpenAlex id, and one not held",
      description:
        "One entry per id in the order sent; an id no reachable collection holds answers its own WORK_NOT_FOUND entry.",
      value: { ids: ["10.1530/eje.0.1410619", "pmid:10601965", "W2125158795", "10.9999/not-held"] },
    },
  },
  WorksFacetsRequest: {
    perYearAndJournal: {
      summary: "Papers per year on hair cortisol, and in which journals",
      description:
        "The works of the query's ranked list above the recommended relevance (0.02), the first 200, counted per " +
        "publication year and journal; free, one query of the quota.",
      value: {
        collection: "openalex-synergy",
        query: "hair cortisol as a marker of chronic stress",
        facets: ["publication_year", "journal"],
        limit: 10,
      },
    },
    collectionUnderFilters: {
      summary: "Open access and article types of a collection's works since 2015",
      value: {
        collection: "clinical-digest",
        filters: { publication_date: { gte: "2015" } },
        facets: ["open_access", "article_type", "integrity"],
      },
    },
  },
  JournalRequestInput: {
    journal: {
      summary: "Ask for a journal to be added",
      value: { title: "The New England Journal of Medicine", issn: "0028-4793", note: "Our clinicians cite it most." },
    },
  },

  // operator (operator token)
  OrganizationRequest: {
    organization: {
      summary: "A live organization with its own limits",
      value: { name: "Riverside Medical Library", billingMode: "live", limits: { perMinute: 60, daily: 5000 } },
    },
  },
  CreditsRequest: { credits: { summary: "Add credits", value: { amount: "25.00", reference: "invoice 2026-0142" } } },
  RefundRequest: {
    refund: {
      summary: "Refund part of what the organization paid (at most that, net of refunds)",
      value: { amount: "0.000100", reference: "goodwill: rows that did not answer the question" },
      // the organization has paid by then: its member unlocked rows on the playground
      "x-after": ["addCredits", "dashboardPlaygroundUnlock"],
    },
  },
  BillingSettingsRequest: {
    settings: {
      summary: "Bill live and hide the balance from API responses",
      value: { billingMode: "live", hideBalance: true },
    },
  },
  PriceRequest: { price: { summary: "A negotiated price per 1000 tokens", value: { pricePer1000: "0.025" } } },
  LimitsRequest: {
    limits: {
      summary: "Raise the limits",
      value: { perMinute: 120, daily: 10000, monthly: 200000, previewPerHour: 100 },
    },
  },
  KeyRequest: {
    key: {
      summary: "A named live key for two collections, capped",
      value: {
        mode: "live",
        name: "Systematic review team",
        collections: ["scifact", "openalex-synergy"],
        spendingCap: "10.00",
      },
    },
  },
  CollectionRequest: {
    beir: {
      summary:
        "A keyword-only collection of a BEIR corpus under DATA_ROOT (a jsonl, jats, medline or openalex source alike)",
      value: {
        name: "scifact-abstracts",
        displayName: "SciFact abstracts (keyword search)",
        description: "The SciFact corpus, searched by BM25 only",
        kind: "scholarly",
        retrieval: "sparse",
        pricePer1000: "0.020",
        openAccessOnly: false,
        scanFilterable: true,
        source: { reader: "beir", files: ["scifact/corpus.jsonl"] },
      },
    },
  },
  CollectionChangeRequest: {
    describe: {
      summary: "A clearer description for the collections list",
      value: { description: "OpenAlex works of the SYNERGY systematic-review datasets: titles and abstracts" },
    },
  },
  MetaCollectionRequest: {
    members: {
      summary: "The meta-collection searched as one, with its members",
      value: {
        displayName: "Biomedical literature",
        description: "Works, trials and digests searched together",
        members: ["openalex-synergy", "scifact", "clinical-digest"],
      },
    },
  },
  IngestRequest: {
    upsert: {
      summary: "Upsert a newer export of the collection's source (unchanged works are skipped)",
      value: { files: ["articles/openalex_works.synergy.jsonl.gz"], mode: "upsert" },
    },
  },
  RetractionsRequest: {
    load: {
      summary: "Load a Retraction Watch export (a path under DATA_ROOT)",
      value: { files: ["retractions/retraction_watch_etl_sampled.csv"] },
    },
  },
  SuspendRequest: { suspend: { summary: "Suspend billing", value: { reason: "invoice 2026-0142 overdue" } } },
  SpendingCapRequest: { cap: { summary: "Set a key's spending cap", value: { spendingCap: "15.00" } } },
  // an organization's first member is an owner: only owners invite the others, set caps and remove members
  InviteRequest: {
    invite: {
      summary: "Invite the organization's first owner to the dashboard",
      value: { email: "librarian@riverside.example.org", role: "owner" },
    },
  },

  // dashboard forms (session cookie and CSRF token; sent by the pages)
  LoginRequest: {
    login: {
      summary: "Sign in (the account the operator invited, with the password it chose)",
      value: { email: "librarian@riverside.example.org", password: "correct horse battery staple" },
      "x-after": ["dashboardAcceptInvite"],
    },
  },
  OperatorLoginRequest: {
    login: {
      summary: "Sign in as the operator: replace with your operator token (ADMIN_TOKEN)",
      description:
        "The token is a secret of your deployment; this placeholder is refused (401) until you put yours in.",
      value: { token: "your-admin-token" },
    },
  },
  SetPasswordRequest: {
    password: {
      summary: "Choose a password (at least 12 characters)",
      value: { password: "correct horse battery staple" },
    },
  },
  DashboardKeyForm: {
    key: {
      summary: "A named live key for two collections, capped",
      value: {
        mode: "live",
        name: "Systematic review team",
        collections: "scifact,openalex-synergy",
        spendingCap: "10.00",
      },
    },
  },
  DashboardCapForm: { cap: { summary: "Set a key's spending cap", value: { spendingCap: "15.00" } } },
  DashboardWebhookForm: {
    endpoint: {
      summary: "Tell a receiver about assisted answers and a low balance",
      value: {
        url: "https://93.184.215.14/hooks/dashboard",
        events: "assisted.completed,balance.low",
        description: "Lab notebook",
      },
    },
  },
  DashboardNotificationsForm: {
    threshold: { summary: "balance.low under 5 credits", value: { balanceLowThreshold: "5.00" } },
  },
  DashboardPlaygroundForm: {
    preview: {
      summary: "A preview of scifact as one of the organization's keys (nothing charged)",
      description: "`key` is the id of a key of the organization (an owner's choice, or one the member created).",
      "x-after": ["dashboardCreateKey"],
      value: {
        key: "key_3fa85f6457174562b3fc2c963f66afa6",
        query: "vitamin D supplementation and fracture risk in older adults",
        collections: "scifact",
        sort: "relevance",
        limit: "5",
      },
    },
  },
  DashboardPlaygroundUnlockForm: {
    quote: {
      summary: "What two ticked rows of the preview cost (nothing charged)",
      description: "`row_1`, `row_2`, …: ids of the preview's rows (its `resultIds`).",
      "x-queryId-from": "dashboardPlaygroundPreview/preview",
      value: PLAYGROUND_TICKED_ROWS,
    },
    confirm: {
      summary: "The unlock of the same rows, within the cost the quote showed",
      description: "`confirm`: the cost the quote answered; the charge never exceeds it.",
      "x-queryId-from": "dashboardPlaygroundPreview/preview",
      value: { ...PLAYGROUND_TICKED_ROWS, confirm: "0.012000" },
    },
  },
  DashboardAlertForm: {
    alert: {
      summary: "An alert on new papers after each ingestion, paid by a live key, within 0.50 a run",
      description: "`key` is the id of a live key of the organization (an owner's choice, or one the member created).",
      "x-after": ["dashboardCreateKey"],
      value: {
        query: "CRISPR base editing in vivo",
        collections: "scifact",
        key: "key_3fa85f6457174562b3fc2c963f66afa6",
        schedule: "on_ingest",
        min_relevance: "0.5",
        max_cost_per_run: "0.50",
        webhook: "",
      },
    },
  },
  DashboardInviteForm: {
    invite: { summary: "Invite a member", value: { email: "analyst@riverside.example.org", role: "member" } },
  },
  OperatorCreditsForm: {
    credits: {
      summary: "Add credits from the organization page",
      value: { amount: "25.00", reference: "invoice 2026-0142" },
    },
  },
  OperatorLimitsForm: {
    limits: {
      summary: "Change the organization's limits",
      value: { perMinute: "120", daily: "10000", monthly: "200000", previewPerHour: "100" },
    },
  },
  OperatorSuspendForm: { suspend: { summary: "Suspend billing", value: { reason: "invoice 2026-0142 overdue" } } },
  CsrfOnlyForm: {
    confirm: { summary: "No fields: the CSRF token goes in X-CSRF-Token (JSON) or _csrf (form)", value: {} },
  },
};

/** Examples of the bodies that have no schema of their own, keyed by operationId. */
export const FREE_BODY_EXAMPLES: Record<string, Record<string, RequestExample>> = {
  callTool: {
    journalLookup: {
      summary: "journals/lookup: a journal of the journals table by ISSN (path prefix journals, tool lookup)",
      value: { issn: "1745-6215" },
    },
  },
  mcpMessage: {
    toolsList: {
      summary: "List the tools this key can call",
      description: "Send Accept: application/json, text/event-stream (Streamable HTTP).",
      value: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    },
  },
};

/** Example values of path parameters that name something of the demo catalogue (ids of things you create are yours). */
/** An author of the demo's OpenAlex collection (Clemens Kirschbaum, who also has ORCID 0000-0003-3707-4444). */
export const AUTHOR_ID_EXAMPLE = "A1928796387";

export const PATH_PARAMETER_EXAMPLES: Record<string, string> = {
  // an editorial collection: the search example filters on has_results, which only editorial collections index
  collection: "clinical-digest",
  name: "openalex-synergy",
  metaCollection: "biomedical",
  prefix: "journals",
  tool: "lookup",
  // a work of the demo's OpenAlex collection, by DOI (sent URL-encoded)
  id: "10.1530/eje.0.1410619",
};
