// Swap quote and prepare on the devnet: p50/p99 (sequential), requests/s (10 connections) and RPC
// round trips per request. Baseline, measured in the same run: one V4Quoter eth_call straight to the node.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { encodeFunctionData, zeroAddress } from 'viem';
import { startDevnet } from '../src/devnet/devnet.ts';
import { UNISWAP } from '../src/chain/uniswap.ts';
import { encodeHookData } from '../src/launchpad/pool.ts';
import { TestChain } from '../test/support/chain.ts';
import { countingProxy, timeSequential } from './config.ts';
import { createBenchKey, median, ROUNDS, startServer, devnetGatewayEnv } from './support.ts';

// The quote's p50 swings between rounds with the devnet's load: at least 5, for a steadier median.
const SWAP_ROUNDS = Math.max(ROUNDS, 5);
import { freePortRange } from '../test/support/net.ts';

export async function benchSwaps() {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-swaps-'));
  const devnet = await startDevnet({ dataDir, basePort: await freePortRange(4) });
  const chain = new TestChain(devnet.chains[0] as (typeof devnet.chains)[number]);
  const { token, key: poolKey } = await chain.launch(chain.account(1));
  await chain.advance(21);
  const proxy = await countingProxy(chain.chain.rpc_url);
  const env = devnetGatewayEnv(devnet, dataDir);
  const apiKey = createBenchKey(env, dataDir);
  // The counted gateway has its own data dir (one gateway per data dir) holding the same key.
  const countedDir = mkdtempSync(join(tmpdir(), 'launchpad-bench-swaps-'));
  copyFileSync(join(dataDir, 'launchpad.sqlite'), join(countedDir, 'launchpad.sqlite'));
  const direct = await startServer(['bin/launchpad.js', 'start'], env);
  const counted = await startServer(['bin/launchpad.js', 'start'], {
    ...env,
    LAUNCHPAD_DATA_DIR: countedDir,
    RPC_URL_8453: proxy.url,
  }).catch(async (err: unknown) => {
    await direct.stop();
    await proxy.close();
    await devnet.stop();
    throw err;
  });
  const wallet = chain.account(2);
  const quoteBody = JSON.stringify({
    chain_id: 8453,
    wallet,
    token_address: token,
    side: 'buy',
    amount_in_raw: '10000000000000000',
    slippage_bps: 100,
  });
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const post = async (url: string, path: string, body: string) => {
    const r = await fetch(`${url}${path}`, { method: 'POST', headers, body });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${text}`);
    return JSON.parse(text) as { data: { quote_id: string } };
  };
  try {
    // Round trips per request (after the first quote, which also finds the token's pool).
    await post(counted.url, '/v1/swaps/quote', quoteBody);
    let before = proxy.bodies.length;
    const quoteId = (await post(counted.url, '/v1/swaps/quote', quoteBody)).data.quote_id;
    const quoteTrips = proxy.bodies.length - before;
    before = proxy.bodies.length;
    const prepareBody = JSON.stringify({ quote_id: quoteId, wallet });
    await post(counted.url, '/v1/swaps/prepare', prepareBody);
    const prepareTrips = proxy.bodies.length - before;

    const quoterCall = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [
        {
          to: chain.chain.uniswap.quoter,
          data: encodeFunctionData({
            abi: UNISWAP.V4Quoter().abi,
            functionName: 'quoteExactInputSingle',
            args: [
              {
                poolKey,
                zeroForOne: true,
                exactAmount: 10n ** 16n,
                hookData: encodeHookData(zeroAddress, ''),
              },
            ],
          }),
        },
        'latest',
      ],
    });
    const rows = [];
    for (let round = 0; round < SWAP_ROUNDS; round++) {
      const quoter = await timeSequential(async () => {
        await (
          await fetch(chain.chain.rpc_url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: quoterCall,
          })
        ).text();
      });
      const quote = await timeSequential(() =>
        post(direct.url, '/v1/swaps/quote', quoteBody).then(() => undefined),
      );
      const freshId = (await post(direct.url, '/v1/swaps/quote', quoteBody)).data.quote_id;
      const freshPrepare = JSON.stringify({ quote_id: freshId, wallet });
      const prepare = await timeSequential(() =>
        post(direct.url, '/v1/swaps/prepare', freshPrepare).then(() => undefined),
      );
      const quoteLoad = await autocannon({
        url: `${direct.url}/v1/swaps/quote`,
        method: 'POST',
        headers,
        body: quoteBody,
        connections: 10,
        duration: 3,
      });
      const prepareLoad = await autocannon({
        url: `${direct.url}/v1/swaps/prepare`,
        method: 'POST',
        headers,
        body: freshPrepare,
        connections: 10,
        duration: 3,
      });
      rows.push({
        quoter,
        quote,
        prepare,
        quoteRps: quoteLoad.requests.average,
        prepareRps: prepareLoad.requests.average,
        errors: quoteLoad.non2xx + prepareLoad.non2xx,
      });
    }
    console.log('\n## Swaps on the devnet (native buy of a launched token)');
    console.log(`RPC round trips per request: quote ${quoteTrips}, prepare ${prepareTrips}`);
    console.log(
      '| round | V4Quoter eth_call p50 ms (baseline) | quote p50 / p99 ms | quote p50 / baseline | quotes/s | prepare p50 / p99 ms | prepares/s | non-2xx |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    rows.forEach((r, i) =>
      console.log(
        `| ${i + 1} | ${r.quoter.p50.toFixed(2)} | ${r.quote.p50.toFixed(2)} / ${r.quote.p99.toFixed(2)} | ${(r.quote.p50 / r.quoter.p50).toFixed(2)} | ${r.quoteRps.toFixed(0)} | ${r.prepare.p50.toFixed(2)} / ${r.prepare.p99.toFixed(2)} | ${r.prepareRps.toFixed(0)} | ${r.errors} |`,
      ),
    );
    const ratio = median(rows.map((r) => r.quote.p50 / r.quoter.p50));
    const rps = median(rows.map((r) => r.quoteRps));
    console.log(
      `median quote p50 / quoter call = ${ratio.toFixed(2)} (target <= 3.00): ${ratio <= 3 ? 'met' : 'NOT met'}`,
    );
    console.log(`median quotes/s = ${rps.toFixed(0)} (target >= 300): ${rps >= 300 ? 'met' : 'NOT met'}`);
  } finally {
    await direct.stop();
    await counted.stop();
    await proxy.close();
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(countedDir, { recursive: true, force: true });
  }
}
