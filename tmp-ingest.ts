import { openScifactIndex } from './bench/scifactBench.js';
const t = performance.now();
const index = await openScifactIndex();
const { report } = index;
console.log(JSON.stringify({ skipped: report.skipped, chunks: report.chunks, documents: report.documentsIndexed, droppedFragments: report.droppedFragments, seconds: report.seconds }));
await index.close();
console.log('took', Math.round((performance.now() - t) / 1000), 's');
