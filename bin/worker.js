// Worker-thread entry: registers tsx (module hooks are per thread), then runs the TypeScript module
// named in workerData.module.
import './tick-shape.js';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
