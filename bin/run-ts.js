#!/usr/bin/env node
// node bin/run-ts.js <file.ts> [args…]: runs one TypeScript entry point (benchmarks, scripts).
import './tick-shape.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`Node 22 or 24 is required (this is ${process.version}); scripts/node.sh 24 npm run …`);
  process.exit(1);
}
register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bin/run-ts.js <file.ts> [args…]');
  process.exit(2);
}
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(resolve(file)).href);
