#!/usr/bin/env node
// The installed `litsearch` command: runs the operator CLI compiled into dist/app (scripts/build-cli.mjs), rebuilding
// it first when a source file is newer than the build, so it starts without transpiling TypeScript and never runs stale
// code.
import { buildCli, cliBuildIsFresh, CLI_BUILD } from "../scripts/build-cli.mjs";
import { pathToFileURL } from "node:url";

if (!cliBuildIsFresh()) await buildCli();
await import(pathToFileURL(CLI_BUILD).href);
