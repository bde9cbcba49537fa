// Every export of src/, workflows/, activities/ and projections/ is imported by another file: an export nothing imports
// is dead code or an `export` its file does not need. `npx tsx scripts/unusedExports.ts` prints them, and the exports
// only test/ or bench/ import.
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { unusedExports } from "../../scripts/unusedExports.js";

/** Unused exports still here, each with its reason. This list may only shrink. */
const ALLOWED_UNUSED = [
  // a declaration file states a JavaScript module's shape: its type is reached only through its export
  "src/embedding/encoderSession.d.mts EncoderSession",
];

/**
 * Exports that only test/ and bench/ import, each with why it stays one: a pure rule its module applies and a unit
 * test holds, a seam a test or bench drives a component through (a factory's options, a stage a calibration bench
 * reruns), a constant a test asserts against, or the type of a value those take or return. Code only tests or benches
 * run belongs in test/support/ or bench/, not here. This list may only shrink: a new test-only export fails the test.
 */
const TEST_ONLY: Record<string, string> = {
  "activities/assisted.ts AssistedActivities": "the activities' interface a workflow test's stand-in implements",
  "projections/memoryTables.ts MemoryTables": "the type of memoryTables(), which the decider tests' given events fill",
  "src/app/config.ts toolPricesFrom":
    "pure rule: reads tool prices from the environment; the config's parsing is held by its unit test",
  "src/app/config.ts toolUpstreamsFrom": "pure rule: reads tool upstreams from the environment, held by its unit test",
  "src/app/config.ts llmReasonerConfigFrom":
    "pure rule: reads the LLM reasoner's settings; the int test builds one from its own env",
  "src/app/config.ts CONFIG_VARIABLES":
    "the variables the service reads: the docs and deploy-manifest tests check every name they mention against it",
  "src/app/scaledTopology.ts taskQueuePollers":
    "reads a task queue's pollers from Temporal: the scaled-shape test and bench count workers with it, and " +
    "production never asks",
  "src/app/temporalWorker.ts workflowBundle":
    "the once-per-process workflow bundle: test workers share it, since bundling again per worker costs " +
    "seconds of webpack",
  "src/domain/inventory.ts InventoryEntry":
    "the type of an inventory row, which the inventory test builds expectations of",
  "src/embedding/modelManifest.ts readModelManifest":
    "the manifest reader the bench's cross-encoder reads its own model with: the production loader knows only " +
    "the embedding models",
  "src/embedding/modelManifest.ts modelManifestSchema":
    "the manifest's schema, extended by the bench's cross-encoder manifest: a bench model is not the service's " +
    "to declare",
  "src/embedding/remoteEmbedder.ts PROBE_TEXTS":
    "the service's probe texts, whose in-process vectors the remote-port bench for another machine carries there",
  "src/embedding/onnxEmbedder.ts EmbeddingPrecision": "the type of the fp32/int8 choice the embedding bench compares",
  "src/embedding/remoteEmbedder.ts nextConcurrency":
    "pure rule: the remote embedder's concurrency step, held by its unit test",
  "src/embedding/remoteEmbedder.ts probeDisagreement":
    "pure rule: how far a server's probe vectors disagree, held by its unit test",
  "src/embedding/remoteEmbedder.ts pickServer":
    "pure rule: which of several servers the next batch goes to, held by its unit test",
  "src/usecases/alerts/alertRules.ts HELD_MARGIN_MS":
    "the margin before an alert's creation, which its unit test places works either side of",
  "src/embedding/remoteEmbedder.ts serverHealthAfter":
    "pure rule: how long a failing server rests, held by its unit test",
  "src/embedding/remoteEmbedder.ts ServerHealth": "the type serverHealthAfter's unit test builds records with",
  "src/embedding/remoteProtocol.ts embeddingServerUrl":
    "one address's checks, which EMBEDDING_URL's list applies to each: the unit test and the benches' single " +
    "server name one address",
  "src/embedding/remoteEmbedder.ts RemoteEmbedderOptions":
    "the factory's options, the seam the remote-embedder test drives it through",
  "src/embedding/wordpieceTokenizer.ts createWordpieceTokenizer":
    "builds the tokenizer from a vocabulary in memory: the unit tier's fixture vocabulary goes in here, with " +
    "no model provisioned",
  "src/embedding/wordpieceTokenizer.ts loadWordpieceTokenizer":
    "loads a vocabulary file by path: the unit test and the bench's cross-encoder read vocabularies that are " +
    "not the service model's",
  "src/eventstore/db.ts statementName": "pure rule: the prepared statement's name of a SQL text, held by its unit test",
  "src/eventstore/eventStore.ts eventHash":
    "the hash chain's step: the billing bench seeds a large log in bulk (seedLog), a valid chain written " +
    "without the store's append",
  "src/eventstore/eventStore.ts GENESIS_HASH":
    "the hash chain's start: the billing bench seeds a chained log in bulk (see eventHash)",
  "src/filters/compileToPredicate.ts parseDatePeriod": "pure rule: a filter's date period, held by its unit test",
  "src/filters/doiReach.ts doiNotInCollectionWarnings":
    "pure rule: the warnings of DOIs a collection lacks, held by its int test",
  "src/filters/planner.ts loadMetricBounds":
    "reads the metrics' bounds file: the planner test reads an absent one and a recomputed one, which " +
    "loadFilterPlanner does not return",
  "src/http/authentication.ts presentedKey": "pure rule: which key a request presents, held by its unit test",
  "src/http/canonicalPath.ts nonCanonicalReason": "pure rule: why a path is not canonical, held by its unit test",
  "src/http/jsonBody.ts nestsDeeperThan": "pure rule: a JSON body's depth limit, held by its unit test",
  "src/http/jsonBody.ts parseJsonBody": "pure rule: a request body's parsing, held by its unit test",
  "src/http/openApiDocument.ts DECLARED_ROUTES":
    "every declared route by group: the fuzz and route-declaration tests walk them with their koa paths, which " +
    "the OpenAPI operations no longer carry",
  "src/http/routes/healthRoutes.ts ReadinessCheck":
    "the readiness check's type, which the health test's stand-ins implement",
  "src/http/routes/healthRoutes.ts ReadinessDetails": "the readiness answer's type the health test reads",
  "src/infra/opensearchNode.ts OpenSearchNode":
    "the type startOpenSearchNode returns, which benches and the cluster helper hold",
  "src/infra/postgresServer.ts PostgresServer": "the type startPostgresServer returns, which benches hold",
  "src/ingest/chunk.ts DEFAULT_MIN_STANDALONE_WORDS":
    "the chunker's default, which the assisted bench's short-row threshold follows: no function returns it",
  "src/ingest/figures/demoFigures.ts quotedPercentages":
    "pure rule: percentages quoted in a text, checked against the demo figures",
  "src/ingest/indexInput.ts currentInput":
    "whether an index holds its input: test/support/buildCollection.ts skips a built one; production asks only " +
    "to decide a rebuild",
  "src/ingest/jatsReader.ts jatsSectionName": "pure rule: a JATS section's name, held by its unit test",
  "src/ingest/medlineReader.ts medlineNotices":
    "pure rule: a MEDLINE citation's integrity notices, held by its unit test",
  "src/ingest/medlineReader.ts parseMedlineXml":
    "pure rule: a MEDLINE file's citations; the reader tests parse the shipped sample",
  "src/ingest/openAlexReader.ts abstractFromInvertedIndex":
    "pure rule: OpenAlex's inverted abstract as text, held by its unit test",
  "src/ingest/openAlexReader.ts openAlexWorkToDocument":
    "pure rule: an OpenAlex work as a document, held by the works unit tests",
  "src/ingest/progressReport.ts progressLine": "pure rule: an ingestion's progress line, held by its unit test",
  "src/ingest/retractions.ts retractionWatchDate": "pure rule: a Retraction Watch date, held by its unit test",
  "src/ingest/retractions.ts retractionWatchList": "pure rule: a Retraction Watch list cell, held by its unit test",
  "src/ingest/retractionsInForce.ts sourceOfFiles": "pure rule: who recorded a load's notices, held by its unit test",
  "src/ingest/shippedVectors.ts ShippedVectors": "the type of the shipped vectors file the int test reads back",
  "src/journals/bounds.ts computeBounds": "pure rule: a journal metric's bounds, held by the journal tests",
  "src/journals/build.ts buildJournalTable":
    "builds the journal table in memory: the real-data test reads it; runBuildJournals, which production " +
    "calls, writes it to a file",
  "src/journals/build.ts mergeJournals": "pure rule: journals of several sources merged, held by its unit test",
  "src/journals/doaj.ts parseDoajCsv": "pure rule: the DOAJ CSV, held by its unit test",
  "src/journals/openAlexSources.ts journalFromOpenAlexSource":
    "pure rule: an OpenAlex source as a journal, held by its unit test",
  "src/journals/worksMetrics.ts hIndex": "pure rule: a journal's h-index, held by its unit tests",
  "src/journals/worksMetrics.ts i10Index": "pure rule: a journal's i10-index, held by its unit tests",
  "src/reasoner/builtin/builtinReasoner.ts planByRules":
    "pure rule: the built-in reasoner's plan, held by its unit test and rerun by the calibration benches",
  "src/reasoner/builtin/judge.ts prepareJudgement":
    "the judge's own stage, which the calibration benches rerun one stage at a time to fit it",
  "src/reasoner/builtin/judge.ts probabilityOfOwn":
    "the judge's own stage, which the calibration benches rerun one stage at a time to fit it",
  "src/reasoner/builtin/judge.ts judgeForm": "pure rule: how the judge reads a request, held by its unit test",
  "src/reasoner/builtin/judge.ts requestKind": "pure rule: what a request asks of a row, held by its unit test",
  "src/reasoner/builtin/judge.ts isClaimToCheck":
    "pure rule: whether a request is a claim to check, held by its unit test",
  "src/reasoner/builtin/judge.ts callEvidence":
    "the judge's own stage, which the calibration benches rerun one stage at a time to fit it",
  "src/reasoner/builtin/judge.ts JudgeRule": "the judge's rule type the calibration benches fit",
  "src/reasoner/builtin/judge.ts JudgeForm": "the type of judgeForm's answer the calibration benches key by",
  "src/reasoner/builtin/judge.ts DEFAULT_JUDGE_MODEL": "the shipped judge the calibration benches start their fit from",
  "src/reasoner/builtin/judge.ts chunkPassage":
    "the judge's passage of a chunk: the calibration bench must read passages exactly as the judge does",
  "src/reasoner/builtin/judge.ts FittedJudge": "the fitted judge's type the calibration benches write",
  "src/reasoner/builtin/qualifiers.ts queryQualifiers": "pure rule: a query's qualifiers, held by its unit test",
  "src/usecases/operator/reconciliation.ts refundShares":
    "pure rule: a refund's split over collections, held by its unit test",
  "src/reasoner/builtin/understanding.ts nounPhrases": "pure rule: a query's noun phrases, held by its unit test",
  "src/reasoner/builtin/understanding.ts formOf": "pure rule: a query's form, held by its unit test",
  "src/reasoner/builtin/understanding.ts answeredQuestion":
    "pure rule: whether a question is answered, held by its unit test",
  "src/reasoner/builtin/verdictScale.ts scaleInputs":
    "pure rule: the verdict scale's inputs, held by its unit test and fitted by a bench",
  "src/reasoner/builtin/verdictScale.ts SCALE_INPUTS":
    "the verdict scale's input names, which its unit test and the fitting bench must use in the scale's order",
  "src/reasoner/builtin/verdictScale.ts ScaleModel": "the verdict scale's type, which its unit test and bench build",
  "src/retrieval/engines/embedded/workFacetTable.ts buildWorkFacetTable":
    "pure rule: the embedded engine's facet table, held by its unit test",
  "src/retrieval/engines/embedded/workFacetTable.ts countWorkFacets":
    "pure rule: facet counts over that table, held by its unit test",
  "src/retrieval/engines/opensearch/facetAggregations.ts facetAggregationBody":
    "pure rule: OpenSearch's facet aggregation, held by its unit test",
  "src/retrieval/engines/opensearch/facetAggregations.ts facetCountsOf":
    "pure rule: facet counts from OpenSearch's answer, held by its unit test",
  "src/retrieval/engines/opensearch/facetAggregations.ts FacetAggregationResponse":
    "the type of OpenSearch's aggregation answer the unit test builds",
  "src/retrieval/engines/opensearch/graphMerge.ts graphsWorthMerging":
    "pure rule: which shards' k-NN graphs commit merges, held by its unit test",
  "src/retrieval/engines/opensearch/keptRows.ts fetchFloor":
    "pure rule: how many rows a kept-rows fetch asks for, held by its unit test",
  "src/retrieval/engines/opensearch/keptRows.ts fetchSettles":
    "pure rule: when kept-rows fetching stops, held by its unit test",
  "src/retrieval/relevance.ts RelevanceCoefficients": "the relevance model's type the fitting bench writes",
  "src/retrieval/searchDeadline.ts withinDeadline": "pure rule: a search's deadline race, held by its unit test",
  "src/text/luceneBm25.ts decodeLengthNorm": "pure rule: Lucene's length norm, held by its unit test",
  "src/usecases/accounts/chargeBatch.ts trySnapshot": "pure rule: when a charge batch snapshots, held by its unit test",
  "src/usecases/alerts/alertRuns.ts runQueryId": "pure rule: an alert run's query id, held by its unit test",
  "src/usecases/auth/keyScope.ts retiredCollection":
    "pure rule: whether a key's collection is retired, held by its unit test",
  "src/usecases/authors/authorsReads.ts prefixEnd": "pure rule: the end of a name-prefix range, held by its unit test",
  "src/usecases/collections/manageCollections.ts collectionVectorsOf":
    "pure rule: what a collection's vectors say in the operator's list, held by its unit test",
  "src/usecases/dashboard/usageReport.ts foldUsage": "pure rule: the usage report's fold, held by its unit test",
  "src/usecases/dashboard/usageReport.ts dailyUsageOfProjections":
    "the usage report's days from projection rows: its unit test gives it rows without the projections' store",
  "src/usecases/dashboard/usageReport.ts DatedCharge":
    "the type of a charge the usage fold reads, which its unit test builds",
  "src/usecases/figures/figureImages.ts planFigureImages":
    "pure rule: which figure images to render, held by its unit test",
  "src/usecases/figures/figureImages.ts renderPlannedImages":
    "renders planned images: the unit test gives it a stand-in renderer and a plan of its own",
  "src/usecases/operator/reconciliation.ts foldOrganizationEvents":
    "pure rule: an organization's events folded for reconciliation, held by its unit test",
  "src/usecases/search/paging.ts ListIdentity": "the type of a list's identity the cursor test builds",
  "src/usecases/search/pipeline.ts MAX_DOCUMENT_DEPTH":
    "the pipeline's document depth: the quality bench deepens its own search to the same limit",
  "src/usecases/search/identifierQuery.ts doiOfQuery":
    "pure rule: which queries are a DOI whole, held by its unit test",
  "src/usecases/search/previewIdempotency.ts idempotencyBodyHash":
    "pure rule: a preview request's idempotency hash; the billing test replays a body",
  "src/usecases/search/queryCache.ts queryRecordPart":
    "a query record as a charge writes it: the charge-batch int test writes one beside each charge, as a " +
    "search does, without running searches",
  "src/usecases/search/queryCache.ts deflatePayload":
    "the stored payload's compression: the charge-batch int test writes the record's payload (see queryRecordPart)",
  "src/usecases/tools/shippedTools.ts pricedRegistry": "pure rule: tools at their prices, held by its unit test",
  "src/usecases/webhooks/urlGuard.ts classifyAddress": "pure rule: a webhook address's class, held by its unit test",
  "src/usecases/works/workFacets.ts worksIntegrity": "pure rule: the integrity facet of works, held by its unit test",
  "src/usecases/works/workFacets.ts syntheticFacets": "pure rule: a sandbox key's facets, held by its unit test",
  "src/usecases/works/workFacets.ts FacetsRequest": "the facets request's type the facets bench builds",
};

describe("unused exports", () => {
  const found = unusedExports(REPO_ROOT);
  const key = (f: { file: string; name: string }) => `${f.file} ${f.name}`;
  const testOnly = found.filter((f) => f.kind === "test-only").map(key);

  it("every export outside the allow-list is imported by another file", () => {
    const unused = found.filter((f) => f.kind === "unused").map(key);
    expect(unused.filter((entry) => !ALLOWED_UNUSED.includes(entry))).toEqual([]);
  });

  it("the allow-list names only exports still unused (it shrinks as they go)", () => {
    const unused = new Set(found.filter((f) => f.kind === "unused").map(key));
    expect(ALLOWED_UNUSED.filter((entry) => !unused.has(entry))).toEqual([]);
  });

  it("every export only tests and benchmarks import is listed with its reason", () => {
    expect(testOnly.filter((entry) => !(entry in TEST_ONLY))).toEqual([]);
  });

  it("the test-only list names only exports still test-only (it shrinks as they go)", () => {
    expect(Object.keys(TEST_ONLY).filter((entry) => !testOnly.includes(entry))).toEqual([]);
  });
});
