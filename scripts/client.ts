// npm run client:generate: writes src/client/openapi.ts, the TypeScript types of the gateway's own OpenAPI
// document (openapi-typescript), which the typed client (src/client/index.ts, openapi-fetch) uses.
// `--check` exits 1 when the committed file differs from a fresh generation (CI runs it through a test).
import { readFileSync, writeFileSync } from 'node:fs';
import { generateClientTypes } from '../src/client/generate.ts';

const target = new URL('../src/client/openapi.ts', import.meta.url);
const fresh = await generateClientTypes();
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== fresh) {
    console.error('src/client/openapi.ts is out of date: npm run client:generate');
    process.exit(1);
  }
  console.log('src/client/openapi.ts is up to date');
} else {
  writeFileSync(target, fresh);
  console.log('wrote src/client/openapi.ts');
}
