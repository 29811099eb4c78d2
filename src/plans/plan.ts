// The plan builder every prepare route uses: steps (transactions and EIP-712 typed data), issues, and
// ONE eth_simulateV1 call at the snapshot's block that runs the transaction steps in order, so a later
// step sees what the earlier ones did. Reverts become problems (REVERT_CODES) with a decoded detail.
import type { Address, Hex, TypedDataDomain } from 'viem';
import type { Snapshot } from '../chain/snapshot.ts';
import { toJson } from '../json.ts';
import { telemetry } from '../telemetry.ts';
import { ApiError } from '../errors.ts';
import { decodeRevert } from './revert.ts';
import { codeForRevert } from './revertCodes.ts';
import { ISSUE_CODES, type IssueCode } from './vocabulary.ts';

export interface TransactionStep {
  id: string;
  label: string;
  depends_on: string[];
  to: Address;
  data: Hex;
  value?: bigint;
}

export interface TypedDataStep {
  id: string;
  label: string;
  depends_on: string[];
  typed_data: {
    domain: TypedDataDomain;
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  };
}

export interface Issue {
  code: IssueCode;
  severity: string;
  /** The spec's Issue object names its text `detail`. */
  detail: string;
  [detail: string]: unknown;
}

/** Gas limits suggested to wallets: the simulated gas plus 20%. */
const GAS_BUFFER_PERCENT = 120n;

type Step = ({ kind: 'transaction' } & TransactionStep) | ({ kind: 'typed_data' } & TypedDataStep);

export class PlanBuilder {
  private readonly steps: Step[] = [];
  private readonly issues: Issue[] = [];

  constructor(
    private readonly snapshot: Snapshot,
    private readonly actor: Address,
    private readonly timing: { nowMs: number; lifetimeMs: number },
  ) {}

  transaction(step: TransactionStep): this {
    this.steps.push({ kind: 'transaction', ...step });
    return this;
  }

  typedData(step: TypedDataStep): this {
    this.steps.push({ kind: 'typed_data', ...step });
    return this;
  }

  issue(code: IssueCode, detail: string, details: Record<string, unknown> = {}): this {
    this.issues.push({ code, severity: ISSUE_CODES[code].severity, detail, ...(toJson(details) as object) });
    return this;
  }

  /** When a plan must expire (unix seconds), e.g. to put into a deadline argument before building. */
  get expiresAtSeconds(): bigint {
    return BigInt(Math.floor((this.timing.nowMs + this.timing.lifetimeMs) / 1000));
  }

  /**
   * Simulates the transaction steps that can run now (not waiting on a signature, directly or through
   * their dependencies) in one call, and returns the plan. A revert throws its mapped problem.
   */
  async build() {
    // A plan with a blocking issue cannot succeed as it stands: nothing is simulated, clients abort.
    const hopeless = this.issues.some((i) => i.severity === 'blocking');
    const blocked = new Set<string>(hopeless ? this.steps.map((s) => s.id) : []);
    for (const s of this.steps) {
      if (s.kind === 'typed_data' || s.depends_on.some((d) => blocked.has(d))) blocked.add(s.id);
    }
    const runnable = this.steps.filter(
      (s): s is Step & { kind: 'transaction' } => s.kind === 'transaction' && !blocked.has(s.id),
    );
    if (runnable.length === 0) await this.snapshot.ensurePinned();
    const results =
      runnable.length > 0
        ? await this.snapshot.simulate(
            runnable.map((s) => ({ from: this.actor, to: s.to, data: s.data, value: s.value ?? 0n })),
          )
        : [];
    const simulated = new Map<string, { gas_used: string; gas_limit: string }>();
    runnable.forEach((s, i) => {
      const r = results[i];
      if (!r || r.status !== 'success') {
        const revert = decodeRevert(r?.error?.data ?? r?.returnData);
        telemetry.simulationFailed(this.snapshot.chainId, codeForRevert(revert.name));
        throw new ApiError(codeForRevert(revert.name), `Step ${s.id} would revert: ${revert.text}`, {
          chain_id: this.snapshot.chainId,
          step_id: s.id,
          revert: revert.name,
        });
      }
      simulated.set(s.id, {
        gas_used: r.gasUsed.toString(),
        gas_limit: ((r.gasUsed * GAS_BUFFER_PERCENT + 99n) / 100n).toString(),
      });
    });
    const block = this.snapshot.blockNumber.toString();
    const simulation = (id: string) => {
      const sim = simulated.get(id);
      return sim
        ? { status: 'succeeded', block_number: block, block_hash: this.snapshot.blockHash, ...sim }
        : { status: 'not_run', block_number: block };
    };
    return {
      chain_id: this.snapshot.chainId,
      actor: this.actor,
      prepared_at: new Date(this.timing.nowMs).toISOString(),
      expires_at: new Date(Number(this.expiresAtSeconds) * 1000).toISOString(),
      observed_block: block,
      issues: this.issues,
      steps: this.steps.map((s) =>
        s.kind === 'transaction'
          ? {
              id: s.id,
              kind: s.kind,
              label: s.label,
              depends_on: s.depends_on,
              transaction: {
                chain_id: this.snapshot.chainId,
                from: this.actor,
                to: s.to,
                data: s.data,
                value: (s.value ?? 0n).toString(),
              },
              simulation: simulation(s.id),
            }
          : {
              id: s.id,
              kind: s.kind,
              label: s.label,
              depends_on: s.depends_on,
              typed_data: toJson(s.typed_data),
              simulation: simulation(s.id),
            },
      ),
    };
  }
}

export type Plan = Awaited<ReturnType<PlanBuilder['build']>>;
