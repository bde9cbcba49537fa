// Child process of referenceVectors.int.spec.ts: encodes word-piece ids with the embedder's own session code
// (src/embedding/encoderSession.mjs), one text a run, and prints the vectors. Plain JavaScript, so it starts quickly
// under an emulated CPU (qemu-x86_64 -cpu ...) without the TypeScript loader.
// stdin: { session: EncoderSessionOptions, ids: number[][] }; stdout: { vectors: number[][] }
import { openEncoderSession } from "../../src/embedding/encoderSession.mjs";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { session: options, ids } = JSON.parse(input);
const session = await openEncoderSession(options);
const vectors = [];
for (const text of ids) vectors.push(Array.from((await session.encode([text]))[0]));
await session.release();
process.stdout.write(JSON.stringify({ vectors }));
