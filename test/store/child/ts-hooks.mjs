// Lets a child `node --experimental-transform-types` run our TypeScript sources directly: a relative
// `./x.js` import that has no .js file resolves to `./x.ts` (the sources import with .js extensions).
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.startsWith('.') && specifier.endsWith('.js')) {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw error;
    }
  },
});
