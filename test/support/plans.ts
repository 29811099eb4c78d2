// Query plans of the hot reads: each query a read ran, explained on PostgreSQL, and what in its plan
// does not scale: a sequential scan of a big table, or a sort or grouping of many more rows than a page.
import { sql } from 'kysely';
import type { Database } from '../../src/store/db.ts';

/** Tables that grow with the chains: never read whole. */
const BIG = new Set([
  'trades',
  'tokens',
  'token_holders',
  'token_words',
  'token_market',
  'fee_events',
  'fee_positions',
  'fee_credits',
]);

/** A node of EXPLAIN's JSON plan, with the figures the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Strategy?: string;
  'Plan Rows': number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'Heap Fetches'?: number;
  Plans?: PlanNode[];
}

/** The plan of one query (EXPLAIN ANALYZE: actual rows, not estimates). */
export async function explain(database: Database, text: string, parameters: readonly unknown[]) {
  return explainWith(database, {}, text, parameters);
}

/**
 * The plan the server keeps for a query the gateway runs as a prepared statement (store/db.ts): after
 * five runs, plan_cache_mode may swap the custom plans for one generic plan; this is the plan of the
 * sixth run, with these parameters (EXPLAIN ANALYZE EXECUTE, on one connection).
 */
export async function explainKept(database: Database, text: string, parameters: readonly unknown[]) {
  return explainPrepared(database, text, parameters, 'auto');
}

/**
 * The generic plan of a prepared query, run with these parameters: the plan a connection may keep once
 * its first five runs, with other parameters (an average wallet, a token with few rows), cost more.
 */
export async function explainGeneric(database: Database, text: string, parameters: readonly unknown[]) {
  return explainPrepared(database, text, parameters, 'force_generic_plan');
}

async function explainPrepared(
  database: Database,
  text: string,
  parameters: readonly unknown[],
  mode: 'auto' | 'force_generic_plan',
) {
  return afterFiveRuns(database, text, parameters, mode, (conn, execute) => analyzed(conn, execute));
}

/**
 * Whether a prepared query's sixth run, with these parameters, ran the generic plan its connection keeps
 * rather than one planned for that run (plan_cache_mode auto): planning at every run can cost more than
 * the run itself.
 */
export async function runsKeptPlan(database: Database, text: string, parameters: readonly unknown[]) {
  return afterFiveRuns(database, text, parameters, 'auto', async (conn, execute) => {
    await sql.raw(execute).execute(conn);
    const { rows } = await sql<{ generic_plans: number | string }>`select generic_plans
      from pg_prepared_statements where name = 'kept_plan'`.execute(conn);
    return Number(rows[0]?.generic_plans) > 0;
  });
}

/** `work` on a connection where the query, prepared as kept_plan, has run five times with these parameters. */
async function afterFiveRuns<T>(
  database: Database,
  text: string,
  parameters: readonly unknown[],
  mode: 'auto' | 'force_generic_plan',
  work: (conn: Database['db'], execute: string) => Promise<T>,
): Promise<T> {
  // (A statement without parameters is executed without parentheses.)
  const args = parameters.length > 0 ? `(${parameters.map(literal).join(', ')})` : '';
  const execute = `execute kept_plan${args}`;
  return withSettings(database, { plan_cache_mode: mode }, async (conn) => {
    await sql`prepare kept_plan as ${sql.raw(text)}`.execute(conn);
    try {
      for (let i = 0; i < 5; i++) await sql.raw(execute).execute(conn);
      return await work(conn, execute);
    } finally {
      await sql`deallocate kept_plan`.execute(conn);
    }
  });
}

/** The plan of one query (as `explain`) with planner settings of its connection (`enable_nestloop`: off). */
export async function explainWith(
  database: Database,
  settings: Record<string, string>,
  text: string,
  parameters: readonly unknown[],
) {
  // Parameters in place ($1 … $n): EXPLAIN takes none.
  const statement = text.replace(/\$(\d+)/g, (_, i: string) => literal(parameters[Number(i) - 1]));
  return withSettings(database, settings, (conn) => analyzed(conn, statement));
}

/** Runs `work` on one connection with these settings, reset after. */
async function withSettings<T>(
  database: Database,
  settings: Record<string, string>,
  work: (conn: Database['db']) => Promise<T>,
): Promise<T> {
  return database.db.connection().execute(async (conn) => {
    for (const [name, value] of Object.entries(settings))
      await sql`select set_config(${name}, ${value}, false)`.execute(conn);
    try {
      return await work(conn);
    } finally {
      for (const name of Object.keys(settings)) await sql`reset ${sql.raw(name)}`.execute(conn);
    }
  });
}

/** The plan EXPLAIN ANALYZE gives of a statement (one without parameters). */
async function analyzed(executor: Database['db'], statement: string): Promise<PlanNode> {
  const { rows } = await sql<{
    'QUERY PLAN': { Plan: PlanNode }[];
  }>`explain (analyze, buffers, format json) ${sql.raw(statement)}`.execute(executor);
  return (rows[0]?.['QUERY PLAN'] as { Plan: PlanNode }[])[0]?.Plan as PlanNode;
}

const literal = (v: unknown): string =>
  Array.isArray(v)
    ? `'{${v.map((e) => `"${String(e).replaceAll('"', '\\"').replaceAll("'", "''")}"`).join(',')}}'`
    : v === null || v === undefined
      ? 'null'
      : typeof v === 'number' || typeof v === 'bigint'
        ? String(v)
        : `'${String(v).replaceAll("'", "''")}'`;

/** The rows a node's first input gave it, over all its loops. */
const rowsInto = (n: PlanNode) => {
  const input = n.Plans?.[0];
  return (input?.['Actual Rows'] ?? input?.['Plan Rows'] ?? 0) * (input?.['Actual Loops'] ?? 1);
};

/**
 * What in a plan does not scale, or costs a page more than its rows: `sortable` is the most rows a sort
 * or a grouping may take (a page and its margin).
 */
export function planProblems(plan: PlanNode, sortable: number): string[] {
  const out: string[] = [];
  for (const n of nodesOf(plan)) {
    if (n['Node Type'] === 'Seq Scan' && BIG.has(n['Relation Name'] ?? ''))
      out.push(`sequential scan of ${n['Relation Name']}`);
    // An index range far wider than the rows kept: the query's narrowing is not in its index bound.
    const removed = (n['Rows Removed by Filter'] ?? 0) * (n['Actual Loops'] ?? 1);
    if (BIG.has(n['Relation Name'] ?? '') && removed > 10 * sortable)
      out.push(`${removed} rows of ${n['Relation Name']} read and filtered out`);
    // Starting parallel workers costs a page read more than the read itself (10-40 ms here).
    if (n['Node Type'] === 'Gather' || n['Node Type'] === 'Gather Merge')
      out.push(`parallel workers (${n['Node Type']})`);
    if ((n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort') && rowsInto(n) > sortable)
      out.push(`a sort of ${rowsInto(n)} rows`);
    // Grouping (a distinct, a union's) of more rows than a page needs; a count's plain aggregate is not.
    if (n['Node Type'] === 'Aggregate' && n.Strategy !== 'Plain' && rowsInto(n) > sortable)
      out.push(`a grouping of ${rowsInto(n)} rows`);
  }
  return out;
}

/** Every node of a plan, in plan order (a node before its inputs). */
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

/** The plan's nodes that read a relation (scans), in plan order. */
export const scansOf = (plan: PlanNode) => nodesOf(plan).filter((n) => n['Relation Name']);

/** The buffers a plan's run read (shared: hit or read), not counting its planning. */
export const buffersOf = (plan: PlanNode) =>
  (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);

/** A plan as indented lines, for a failure's message and the bench's report. */
export function planText(n: PlanNode, depth = 0): string {
  const self = `${'  '.repeat(depth)}${n['Node Type']}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}${n['Index Name'] ? ` using ${n['Index Name']}` : ''} (rows ${n['Actual Rows'] ?? n['Plan Rows']})`;
  return [self, ...(n.Plans ?? []).map((c) => planText(c, depth + 1))].join('\n');
}
