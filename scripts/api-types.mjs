#!/usr/bin/env node
// Writes web/src/api-types.ts, the console's types of the HTTP API, from the OpenAPI document the server
// really serves: it starts the built server (dist/, so `npm run api:types` builds first) on a loopback
// port, reads GET /v1/openapi.json and turns it into TypeScript with openapi-typescript, formatted as the
// repository's prettier settings say.
//   --check      compare instead of writing; exit 1 with a message when the file is out of date
//   --out FILE   write (or check) FILE instead of web/src/api-types.ts
// test/server/api-types.test.ts runs `--check`, so a change to the API that leaves the file behind fails.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import * as prettier from 'prettier';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_OUT = fileURLToPath(new URL('../web/src/api-types.ts', import.meta.url));

// Not linted: the file is openapi-typescript's, shaped as the document is (`A & unknown` and the like).
const HEADER = `/* eslint-disable */
/**
 * The HTTP API's types, generated from the OpenAPI document the server serves (GET /v1/openapi.json) by
 * \`npm run api:types\` (scripts/api-types.mjs, openapi-typescript). Do not edit: change the route's schema
 * in src/server/ and generate again; test/server/api-types.test.ts fails while this file is out of date.
 * The console reads its shapes from here (web/src/api.ts names the ones it uses).
 */
`;

/** Never prints: the document is all this script wants from the server. */
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The OpenAPI document the built server answers on GET /v1/openapi.json. */
async function servedDocument() {
  const { createRuntime } = await import('../dist/src/index.js');
  const { createServer } = await import('../dist/src/server/index.js');
  const runtime = createRuntime({ store: 'memory', logger: false });
  const server = createServer({ runtime, tokens: null, logger: silent });
  try {
    const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${url}/v1/openapi.json`);
    if (!response.ok)
      throw new Error(`GET /v1/openapi.json answered ${response.status}: ${await response.text()}`);
    return await response.json();
  } finally {
    await server.close();
    await runtime.close();
  }
}

/** The text of api-types.ts for `doc`, formatted like the rest of the repository. */
async function apiTypesSource(doc) {
  const ast = await openapiTS(doc, { exportType: false, alphabetize: true });
  const text = HEADER + astToString(ast);
  const config = await prettier.resolveConfig(DEFAULT_OUT);
  return prettier.format(text, { ...config, filepath: DEFAULT_OUT });
}

async function main() {
  const { values } = parseArgs({ options: { check: { type: 'boolean' }, out: { type: 'string' } } });
  const out = values.out ?? DEFAULT_OUT;
  const source = await apiTypesSource(await servedDocument());
  const shown = out.startsWith(ROOT) ? out.slice(ROOT.length) : out;
  if (!values.check) {
    await writeFile(out, source);
    process.stdout.write(`wrote ${shown}\n`);
    return;
  }
  const current = await readFile(out, 'utf8').catch((error) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (current === source) return;
  process.stderr.write(
    `${shown} is out of date with the API the server serves: run \`npm run api:types\` and commit the file\n`,
  );
  process.exitCode = 1;
}

await main();
