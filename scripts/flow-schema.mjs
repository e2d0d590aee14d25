#!/usr/bin/env node
// Writes schema/flow.schema.json from the zod schema of flows (src/domain/flow.ts): `npm run schema`.
// Runs the TypeScript sources directly (Node's type stripping), so it needs no build; the hook maps the
// sources' `./x.js` imports to `./x.ts`. test/flow/json-schema.test.ts fails when the file is stale.
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.startsWith('.') && specifier.endsWith('.js'))
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      throw error;
    }
  },
});

const { FLOW_SCHEMA_FILE, writeFlowJsonSchema } = await import('../src/flow/flow-json-schema.ts');
const target = fileURLToPath(new URL(`../${FLOW_SCHEMA_FILE}`, import.meta.url));
await writeFlowJsonSchema(target);
process.stdout.write(`wrote ${FLOW_SCHEMA_FILE}\n`);
