import { defineConfig } from 'vitest/config';

// better-sqlite3 13 crashes on Node 20; say so instead of a worker's SIGSEGV.
if (Number(process.versions.node.split('.')[0]) < 22)
  throw new Error(`the tests need Node 22 or 24 (this is ${process.version}): scripts/node.sh 24 npm test`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/postgres.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests never join the public IPFS network (this machine has no internet, and it is not what they
    // test); the test of IPFS_NETWORK=on sets it itself. Spawned gateways inherit this.
    env: { IPFS_NETWORK: 'off' },
  },
});
