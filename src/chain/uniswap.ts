// Uniswap v4 and Permit2 from the npm packages' shipped builds (no compilation of Uniswap code here).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';

const require = createRequire(import.meta.url);

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

function foundry(path: string): Artifact {
  const json = JSON.parse(readFileSync(require.resolve(path), 'utf8')) as {
    abi: Abi;
    bytecode: { object: Hex };
  };
  return { abi: json.abi, bytecode: json.bytecode.object };
}

function hardhat(path: string): Artifact {
  const json = JSON.parse(readFileSync(require.resolve(path), 'utf8')) as { abi: Abi; bytecode: Hex };
  return { abi: json.abi, bytecode: json.bytecode };
}

export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3' as const;

export const UNISWAP = {
  PoolManager: () => foundry('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json'),
  StateView: () => foundry('@uniswap/v4-periphery/foundry-out/StateView.sol/StateView.json'),
  V4Quoter: () => foundry('@uniswap/v4-periphery/foundry-out/V4Quoter.sol/V4Quoter.json'),
  PositionManager: () =>
    foundry('@uniswap/v4-periphery/foundry-out/PositionManager.sol/PositionManager.json'),
  WETH: () => foundry('@uniswap/v4-periphery/foundry-out/WETH.sol/WETH.default.json'),
  UniversalRouter: () =>
    hardhat('@uniswap/universal-router/artifacts/contracts/UniversalRouter.sol/UniversalRouter.json'),
};

/**
 * Permit2's runtime code, as Uniswap ships it for tests: runtime bytecode meant to be placed at the
 * canonical address (its EIP-712 domain is rebuilt for any chain id other than the one it was built on).
 */
export function permit2RuntimeCode(): Hex {
  const source = readFileSync(
    require.resolve('@uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol'),
    'utf8',
  );
  const match = /hex"([0-9a-fA-F]+)"/.exec(source);
  if (!match) throw new Error('Permit2 bytecode not found in @uniswap/v4-periphery');
  return `0x${match[1]}` as Hex;
}
