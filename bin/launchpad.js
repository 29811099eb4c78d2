#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so a clean clone needs no build step.
import './tick-shape.js';
import { register } from 'tsx/esm/api';

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(
    `launchpad: Node 22 or 24 is required (this is ${process.version}); scripts/node.sh 24 npm start`,
  );
  process.exit(1);
}
register();
await import('../src/cli.ts');
