// The deploy kit holds against the code: every setting the compose file and the Kubernetes manifests set
// is one the gateway reads; the alert rules pass `promtool check rules`; every metric the rules and the
// Grafana dashboard name is one a running gateway exports.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { type FakeRpc, startFakeRpc } from './support/fakeRpc.ts';
import { findBin, settingsOf } from './support/postgres.ts';
import { call, startGateway, type TestGateway } from './support/gateway.ts';

const SETTINGS = readFileSync('src/settings.ts', 'utf8');
/** Whether src/settings.ts reads the variable (as env.NAME, env['NAME'] or a named int/onOff setting). */
const readsSetting = (name: string) =>
  /^RPC_URL_(8453|4663|143|5042)$/.test(name) || new RegExp(`env\\.${name}\\b|'${name}'`).test(SETTINGS);

describe('deploy/compose.yaml', () => {
  // The replicas share one anchor (`<<:` merge keys, which Compose resolves).
  const compose = parse(readFileSync('deploy/compose.yaml', 'utf8'), { merge: true });
  const gatewayServices = Object.entries(compose.services as Record<string, Record<string, unknown>>).filter(
    ([, s]) => String(s.image).includes('launchpad-gateway'),
  );

  it('runs two gateway replicas, an indexer, PostgreSQL, Redis and IPFS', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['gateway-1', 'gateway-2', 'indexer', 'ipfs', 'postgres', 'redis'].sort(),
    );
    const commands = Object.fromEntries(gatewayServices.map(([name, s]) => [name, s.command]));
    expect(commands).toEqual({ 'gateway-1': ['start'], 'gateway-2': ['start'], indexer: ['indexer'] });
  });

  it("weights the indexer's CPU at a fifth of a replica's (the default 1024), as Kubernetes requests do", () => {
    const shares = Object.fromEntries(gatewayServices.map(([name, s]) => [name, s.cpu_shares ?? 1024]));
    expect(shares).toEqual({ 'gateway-1': 1024, 'gateway-2': 1024, indexer: 200 });
    const cpu = (file: string) =>
      parseAllDocuments(readFileSync(`deploy/kubernetes/${file}`, 'utf8'))
        .map((d) => d.toJS())
        .find((d) => d?.kind === 'Deployment').spec.template.spec.containers[0].resources.requests.cpu;
    expect([cpu('gateway.yaml'), cpu('indexer.yaml')]).toEqual(['500m', '100m']);
  });

  it("runs PostgreSQL with a database host's settings, each one the server has, its memory's from .env", () => {
    const settings = settingsOf(compose.services.postgres.command as string[]);
    const known = new Set(
      execFileSync(findBin('postgres'), ['--describe-config'], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.split('\t')[0]),
    );
    expect(settings.map(([name]) => name).filter((name) => !known.has(name))).toEqual([]);
    expect(Object.fromEntries(settings)).toMatchObject({
      shared_buffers: '${POSTGRES_SHARED_BUFFERS:-1GB}',
      effective_cache_size: '${POSTGRES_CACHE_SIZE:-3GB}',
      maintenance_work_mem: '${POSTGRES_MAINTENANCE_MEM:-256MB}',
      huge_pages: 'try',
    });
  });

  it('sets only settings the gateway reads', () => {
    expect(gatewayServices).toHaveLength(3);
    for (const [name, service] of gatewayServices) {
      const names = Object.keys(service.environment as object);
      expect(names.length, name).toBeGreaterThan(5);
      expect(
        names.filter((n) => !readsSetting(n)),
        name,
      ).toEqual([]);
    }
    // And the check itself tells a setting from a name the gateway never reads.
    expect(readsSetting('REDIS_URL') && !readsSetting('REDIS_HOST')).toBe(true);
  });
});

describe('deploy/kubernetes', () => {
  const docs = readdirSync('deploy/kubernetes').flatMap((f) =>
    parseAllDocuments(readFileSync(`deploy/kubernetes/${f}`, 'utf8')).map((d) => d.toJS()),
  );
  const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`);

  it('has the gateway Deployment with probes, its Service, and the indexer as its own Deployment', () => {
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Deployment/launchpad-gateway',
        'Service/launchpad-gateway',
        'Deployment/launchpad-indexer',
        'ConfigMap/launchpad-gateway',
        'Secret/launchpad-gateway',
      ]),
    );
    const gateway = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'launchpad-gateway');
    const container = gateway.spec.template.spec.containers[0];
    expect(container.readinessProbe.httpGet.path).toBe('/v1/health');
    expect(container.livenessProbe.httpGet.path).toBe('/v1/health');
    expect(gateway.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('sets only settings the gateway reads', () => {
    const names = docs.flatMap((d) => [
      ...(d.kind === 'ConfigMap' ? Object.keys(d.data) : []),
      ...(d.kind === 'Secret' ? Object.keys(d.stringData) : []),
      ...(d.kind === 'Deployment'
        ? d.spec.template.spec.containers.flatMap((c: { env?: { name: string }[] }) =>
            (c.env ?? []).map((e) => e.name),
          )
        : []),
    ]);
    expect(names.length).toBeGreaterThan(8);
    expect(names.filter((n) => !readsSetting(n))).toEqual([]);
  });
});

describe('alert rules and dashboard', () => {
  let rpc: FakeRpc;
  let gw: TestGateway;
  beforeAll(async () => {
    rpc = await startFakeRpc({ head: 42n });
    gw = await startGateway({ METRICS_TOKEN: 'deploy-metrics', RPC_URL_8453: rpc.url });
  });
  afterAll(async () => {
    await gw?.close();
    await rpc?.close();
  });

  const metricNames = (text: string) =>
    [...new Set([...text.matchAll(/\blaunchpad_[a-z0-9_]+/g)].map((m) => m[0]))].map((n) =>
      n.replace(/_(bucket|count|sum)$/, ''),
    );

  it('the rules pass promtool check rules', async () => {
    const { stdout } = await promisify(execFile)('promtool', [
      'check',
      'rules',
      'deploy/prometheus/alerts.yml',
    ]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('name only metrics the gateway exports', async () => {
    const rules = readFileSync('deploy/prometheus/alerts.yml', 'utf8');
    const dashboard = JSON.parse(readFileSync('deploy/grafana/launchpad-gateway.json', 'utf8'));
    const exprs = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) =>
      p.targets.map((t) => t.expr),
    );
    const named = [...new Set([...metricNames(rules), ...metricNames(exprs.join('\n'))])];
    expect(named.length).toBeGreaterThan(10);
    const scraped = await call(gw, '/metrics', { headers: { authorization: 'Bearer deploy-metrics' } });
    expect(scraped.status).toBe(200);
    const exported = new Set([...scraped.body.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    expect(named.filter((n) => !exported.has(n))).toEqual([]);
    // What the issue asks the dashboard to show, by the metric that shows it.
    for (const m of [
      'launchpad_http_request_duration_seconds',
      'launchpad_limiter_decisions_total',
      'launchpad_rpc_duration_seconds',
      'launchpad_indexer_head_lag_blocks',
      'launchpad_ipfs_pin_duration_seconds',
      'launchpad_event_streams',
      'launchpad_webhook_deliveries_total',
    ])
      expect(metricNames(exprs.join('\n'))).toContain(m);
  });
});
