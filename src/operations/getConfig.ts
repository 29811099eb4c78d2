// getConfig: the chain section is static; suites and quotes come from the deployment manifests merged
// with live reads of each suite's factory at one pinned block (`as_of_block`). Never cached.
import type { ChainClients } from '../chain/clients.ts';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import type { DeploymentCheck } from './checkDeployment.ts';
import { type ConfigQuery as LiveQuery, liveConfiguration, staticChain } from '../launchpad/liveConfig.ts';

export const CONFIG_SECTIONS = ['chains', 'suites', 'quotes'] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

export interface ConfigDeps {
  chains: ChainClients;
  deployments: Deployments;
  /** The deployment checks run at start (production mode); a failing one is a warning of its chain. */
  deploymentChecks?: readonly DeploymentCheck[];
}

/** The query of GET /v1/config (defaults applied). */
export type GetConfigInput = Omit<LiveQuery, 'sections'> & { include: string };

export interface ConfigResult {
  config: Record<string, unknown>;
  warnings: string[];
}

/** Whether a comma-separated include names a section read live. */
const LIVE_SECTION = /(?:^|,)(?:suites|quotes)(?:,|$)/;

// The answer without live sections depends only on the chain and the deps: built once per chain.
const staticAnswers = new WeakMap<ConfigDeps, Map<number, ConfigResult>>();

/**
 * The configuration of one chain: static chain facts, and its suites and quotes read live when asked.
 * Without a live section it answers synchronously, with the same object for every call of a chain: a
 * caller may cache what it derives from it (its JSON) by identity, and must not change it.
 */
export function getConfig(deps: ConfigDeps, q: GetConfigInput): ConfigResult | Promise<ConfigResult> {
  if (!LIVE_SECTION.test(q.include)) {
    let answers = staticAnswers.get(deps);
    if (!answers) staticAnswers.set(deps, (answers = new Map()));
    let answer = answers.get(q.chain_id);
    if (!answer) {
      const chain = staticChain(q.chain_id as ChainId, deps.deployments.get(q.chain_id));
      answer = { config: { chain, supported_chain_ids: [...CHAIN_IDS] }, warnings: failingChecks(deps, q) };
      answers.set(q.chain_id, deepFreeze(answer));
    }
    return answer;
  }
  const sections = new Set(q.include.split(',') as ConfigSection[]);
  const failing = failingChecks(deps, q);
  const supported_chain_ids = [...CHAIN_IDS];
  return liveConfiguration(deps.chains, deps.deployments, { ...q, sections }).then((live) => ({
    config: {
      chain: live.chain,
      supported_chain_ids,
      ...(sections.has('suites') ? { suites: live.suites } : {}),
      ...(sections.has('quotes') ? { quotes: live.quotes } : {}),
      as_of_block: live.as_of_block,
    },
    warnings: [...live.warnings, ...failing],
  }));
}

/** The chain's failed deployment checks (run at start), as warnings. */
function failingChecks(deps: ConfigDeps, q: GetConfigInput): string[] {
  return (deps.deploymentChecks ?? [])
    .filter((c) => c.chain_id === q.chain_id && !c.ok)
    .map((c) => `deployment check failed: ${c.check}: expected ${c.expected}, found ${c.found}`);
}

/** Freezes a plain JSON value and everything in it (shared answers are read-only). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
