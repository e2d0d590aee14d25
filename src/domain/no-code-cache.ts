import { setFlagsFromString } from 'node:v8';

/**
 * Runs `compile` (code that builds functions from generated source, as Ajv does with `new Function`)
 * with V8's compilation cache off. V8 keeps the source of every such function in that cache for the
 * life of the process: each compiled validator of an uploaded flow's schema stayed there (hundreds of
 * KB each), whatever became of the validator. The cache only speeds up compiling the same source
 * twice, which the validator cache (schema-engine.ts) already avoids. The flag is read by V8 at each
 * compilation, so it is switched off for this call only.
 */
export function withoutCodeCache<T>(compile: () => T): T {
  setFlagsFromString('--no-compilation-cache');
  try {
    return compile();
  } finally {
    setFlagsFromString('--compilation-cache');
  }
}
