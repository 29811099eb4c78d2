// Schema migrations, in code, applied in order at start (kysely's Migrator keeps the record and the lock).
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { CID } from 'multiformats/cid';
import { blockKey } from './blockKeys.ts';

// Migrations run against whatever schema exists at their point in history, so they take an untyped db.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type AnyDb = Kysely<any>;

/** Gives the rows of `table` (keyed by chain_id and address) their tokens' search words. */
async function fillSearchWords(db: AnyDb, table: string): Promise<void> {
  await sql`update ${sql.table(table)} set search_words = t.search_words from tokens t
    where t.chain_id = ${sql.ref(`${table}.chain_id`)} and t.address = ${sql.ref(`${table}.address`)}`.execute(
    db,
  );
}

/**
 * PostgreSQL: writes the rows of `table` anew, with their tokens' search words, into the emptied table
 * (whose indexes the caller dropped, to build after). Updated in place, in the migration's one
 * transaction, every index would keep both versions of every row: at 1M tokens, twice its size.
 */
async function rewriteWithSearchWords(db: AnyDb, table: string): Promise<void> {
  await sql`create temporary table search_word_rows as select * from ${sql.table(table)}`.execute(db);
  await fillSearchWords(db, 'search_word_rows');
  await sql`truncate ${sql.table(table)}`.execute(db);
  await sql`insert into ${sql.table(table)} select * from search_word_rows`.execute(db);
  await sql`drop table search_word_rows`.execute(db);
}

/** Migrations; `kind` only where the two databases need different DDL. */
const migrationsFor = (kind: 'sqlite' | 'postgres'): Record<string, Migration> => ({
  '0001_api_keys': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('api_keys')
        .addColumn('key_id', 'varchar(8)', (c) => c.primaryKey())
        .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('plan', 'varchar(32)', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('origins', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('overrides', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('expires_at', 'varchar(32)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_used_at', 'varchar(32)')
        .execute();
    },
  },
  '0002_idempotency': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('idempotency_records')
        .addColumn('key_id', 'varchar(8)', (c) => c.notNull())
        .addColumn('idem_key', 'varchar(255)', (c) => c.notNull())
        .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
        .addColumn('state', 'varchar(8)', (c) => c.notNull())
        .addColumn('lease_until', 'bigint', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('content_type', 'varchar(200)')
        .addColumn('body', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_records_pk', ['key_id', 'idem_key'])
        .execute();
      await db.schema
        .createIndex('idempotency_records_expires')
        .on('idempotency_records')
        .column('expires_at')
        .execute();
    },
  },
  '0003_index': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('index_state')
        .addColumn('chain_id', 'integer', (c) => c.primaryKey())
        .addColumn('indexed_through', 'bigint', (c) => c.notNull())
        .execute();
      // Hashes of indexed blocks (range ends and blocks with events): how a reorg is noticed.
      await db.schema
        .createTable('index_blocks')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('number', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'varchar(66)', (c) => c.notNull())
        .addPrimaryKeyConstraint('index_blocks_pk', ['chain_id', 'number'])
        .execute();
      await db.schema
        .createTable('tokens')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('address', 'varchar(42)', (c) => c.notNull())
        .addColumn('suite_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('market', 'varchar(16)', (c) => c.notNull())
        .addColumn('quote_address', 'varchar(42)', (c) => c.notNull())
        .addColumn('creator', 'varchar(42)', (c) => c.notNull())
        .addColumn('pool_id', 'varchar(66)', (c) => c.notNull())
        .addColumn('hook', 'varchar(42)', (c) => c.notNull())
        .addColumn('tick_spacing', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('symbol', 'text', (c) => c.notNull())
        .addColumn('metadata_uri', 'text', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('tokens_pk', ['chain_id', 'address'])
        .execute();
      await db.schema
        .createIndex('tokens_order')
        .on('tokens')
        .columns(['chain_id', 'block_number', 'log_index'])
        .execute();
      await db.schema.createIndex('tokens_creator').on('tokens').columns(['creator']).execute();
      await db.schema
        .createTable('trades')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('block_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('timestamp', 'bigint', (c) => c.notNull())
        .addColumn('token', 'varchar(42)', (c) => c.notNull())
        .addColumn('trader', 'varchar(42)', (c) => c.notNull())
        .addColumn('side', 'varchar(4)', (c) => c.notNull())
        .addColumn('amount_in_raw', 'text', (c) => c.notNull())
        .addColumn('amount_out_raw', 'text', (c) => c.notNull())
        .addColumn('quote_amount_raw', 'text', (c) => c.notNull())
        .addColumn('token_amount_raw', 'text', (c) => c.notNull())
        .addColumn('fee_raw', 'text', (c) => c.notNull())
        .addColumn('fee_currency', 'varchar(42)', (c) => c.notNull())
        .addColumn('referrer', 'varchar(42)')
        .addColumn('comment', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('trades_pk', ['chain_id', 'tx_hash', 'log_index'])
        .execute();
      await db.schema
        .createIndex('trades_token')
        .on('trades')
        .columns(['chain_id', 'token', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createTable('announcements')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('token', 'varchar(42)', (c) => c.notNull())
        .addColumn('announcement_id', 'varchar(66)', (c) => c.notNull())
        .addColumn('creator', 'varchar(42)', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('uri', 'text', (c) => c.notNull())
        .addColumn('posted_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('announcements_pk', ['chain_id', 'tx_hash', 'log_index'])
        .execute();
      await db.schema
        .createIndex('announcements_token')
        .on('announcements')
        .columns(['chain_id', 'token', 'block_number'])
        .execute();
    },
  },
  '0004_fee_events': {
    async up(db: AnyDb) {
      // Fee escrow Credited and Claimed events: the candidate positions of a wallet and its claim history.
      await db.schema
        .createTable('fee_events')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('escrow', 'varchar(42)', (c) => c.notNull())
        .addColumn('recipient', 'varchar(42)', (c) => c.notNull())
        .addColumn('currency', 'varchar(42)', (c) => c.notNull())
        .addColumn('kind', 'varchar(8)', (c) => c.notNull())
        .addColumn('amount', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('fee_events_pk', ['chain_id', 'tx_hash', 'log_index'])
        .execute();
      await db.schema
        .createIndex('fee_events_recipient')
        .on('fee_events')
        .columns(['recipient', 'chain_id'])
        .execute();
    },
  },
  '0005_token_words': {
    async up(db: AnyDb) {
      // Lower-case words of token names and symbols, for prefix search by range on an index. Byte order
      // ("C" collation on PostgreSQL; SQLite's default) keeps a prefix's rows in one range.
      const word = kind === 'postgres' ? sql`varchar(64) collate "C"` : sql`varchar(64)`;
      await db.schema
        .createTable('token_words')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('word', word, (c) => c.notNull())
        .addColumn('address', 'varchar(42)', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_words_pk', ['word', 'chain_id', 'address'])
        .execute();
      await db.schema.createIndex('tokens_address').on('tokens').column('address').execute();
      // The market-filtered list in launch order.
      await db.schema
        .createIndex('tokens_market_order')
        .on('tokens')
        .columns(['chain_id', 'market', 'block_number', 'log_index'])
        .execute();
    },
  },
  '0006_token_holders': {
    async up(db: AnyDb) {
      // Every address a launch token was ever transferred to (balances are read live, at one block).
      await db.schema
        .createTable('token_holders')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('token', 'varchar(42)', (c) => c.notNull())
        .addColumn('holder', 'varchar(42)', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_holders_pk', ['chain_id', 'token', 'holder'])
        .execute();
    },
  },
  '0007_market_data': {
    async up(db: AnyDb) {
      // What changed after a launch (name, symbol, contract URI, extra metadata, current creator, creator
      // fee recipient), one row
      // per event; the launch's own values are the first rows. A token's fields are its latest rows, so a
      // reorg that deletes rows leaves the fields recomputable from what survives.
      await db.schema
        .createTable('token_updates')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('token', 'varchar(42)', (c) => c.notNull())
        .addColumn('field', 'varchar(300)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('token_updates_pk', ['chain_id', 'tx_hash', 'log_index', 'field'])
        .execute();
      await db.schema
        .createIndex('token_updates_token')
        .on('token_updates')
        .columns(['chain_id', 'token', 'field', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .alterTable('tokens')
        .addColumn('current_creator', 'varchar(42)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('tokens')
        .addColumn('launch_supply', 'text', (c) => c.notNull().defaultTo('0'))
        .execute();
      await db.schema
        .alterTable('tokens')
        .addColumn('fee_recipient', 'varchar(42)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db
        .updateTable('tokens')
        .set({ current_creator: sql`creator` })
        .execute();
      await db.schema.createIndex('tokens_current_creator').on('tokens').column('current_creator').execute();
      // Launch order across chains is by launch time (block numbers of different chains do not compare).
      await db.schema.dropIndex('tokens_order').execute();
      await db.schema.dropIndex('tokens_market_order').execute();
      const order = ['created_at', 'block_number', 'log_index'];
      await db.schema
        .createIndex('tokens_time')
        .on('tokens')
        .columns(['created_at', 'chain_id', 'block_number', 'log_index'])
        .execute();
      await db.schema
        .createIndex('tokens_chain_time')
        .on('tokens')
        .columns(['chain_id', ...order])
        .execute();
      await db.schema
        .createIndex('tokens_chain_market_time')
        .on('tokens')
        .columns(['chain_id', 'market', ...order])
        .execute();
      // The pool price after each swap, from the PoolManager's Swap event.
      await db.schema.alterTable('trades').addColumn('sqrt_price_x96', 'text').execute();
      // Derived market data, refreshed on a schedule (src/indexer/marketRefresh.ts). Ranked values are
      // doubles for ordering; -1 where a value has no USD price (they sort last). Each ranked order has
      // an index for all chains, for one chain, and for one chain and market.
      await db.schema
        .createTable('token_market')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('address', 'varchar(42)', (c) => c.notNull())
        .addColumn('market', 'varchar(16)', (c) => c.notNull())
        .addColumn('sqrt_price_x96', 'text', (c) => c.notNull())
        .addColumn('reserve_quote_raw', 'text', (c) => c.notNull())
        .addColumn('activity', 'text', (c) => c.notNull())
        .addColumn('market_cap_usd', 'double precision', (c) => c.notNull())
        .addColumn('liquidity_usd', 'double precision', (c) => c.notNull())
        .addColumn('volume_24h_usd', 'double precision', (c) => c.notNull())
        .addColumn('trending_score', 'double precision', (c) => c.notNull())
        .addColumn('as_of_block', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        // 1 after a reorg under as_of_block: the reserve is recomputed from all trades, not extended.
        .addColumn('rebuild', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('token_market_pk', ['chain_id', 'address'])
        .execute();
      for (const column of ['market_cap_usd', 'liquidity_usd', 'volume_24h_usd', 'trending_score']) {
        await db.schema
          .createIndex(`token_market_${column}`)
          .on('token_market')
          .columns([column, 'chain_id', 'address'])
          .execute();
        await db.schema
          .createIndex(`token_market_chain_${column}`)
          .on('token_market')
          .columns(['chain_id', column, 'address'])
          .execute();
        await db.schema
          .createIndex(`token_market_chain_market_${column}`)
          .on('token_market')
          .columns(['chain_id', 'market', column, 'address'])
          .execute();
      }
      // The hook's fee credits per component (FeeComponentCredited), tied to the swap that paid them.
      await db.schema
        .createTable('fee_credits')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('swap_log_index', 'integer', (c) => c.notNull())
        .addColumn('component', 'varchar(32)', (c) => c.notNull())
        .addColumn('recipient', 'varchar(42)', (c) => c.notNull())
        .addColumn('currency', 'varchar(42)', (c) => c.notNull())
        .addColumn('amount', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('fee_credits_pk', ['chain_id', 'tx_hash', 'log_index'])
        .execute();
      // Per chain: when market data was last refreshed (the ranking's version, for cursor_stale), the
      // chain time it was computed for, and the last trade it has taken into the reserves.
      await db.schema
        .createTable('market_state')
        .addColumn('chain_id', 'integer', (c) => c.primaryKey())
        .addColumn('refreshed_at', 'bigint', (c) => c.notNull())
        .addColumn('chain_time', 'bigint', (c) => c.notNull())
        .addColumn('as_of_block', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '0008_chain_text': {
    async up(db: AnyDb) {
      // Raw bytes of text the chain gave when its stored text is not exactly them (src/indexer/chainText.ts).
      for (const table of ['tokens', 'token_updates', 'announcements'])
        await db.schema.alterTable(table).addColumn('raw_hex', 'text').execute();
      // Logs that did not decode: recorded once and skipped, so a poison log never stops a chain's index.
      await db.schema
        .createTable('skipped_logs')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('address', 'varchar(42)', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('skipped_logs_pk', ['chain_id', 'tx_hash', 'log_index'])
        .execute();
    },
  },
  '0009_gateway_secrets': {
    async up(db: AnyDb) {
      // Secrets every replica must share (the quote and cursor signing secret), made once.
      await db.schema
        .createTable('gateway_secrets')
        .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '0010_pins': {
    async up(db: AnyDb) {
      // Pinned content on PostgreSQL, so every replica serves every pin (the data dir keeps SQLite's).
      await db.schema
        .createTable('pins')
        .addColumn('cid', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('content_type', 'varchar(200)', (c) => c.notNull())
        .addColumn('content', kind === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '0011_ipfs_blocks': {
    async up(db: AnyDb) {
      // The IPFS node's blockstore: blocks by multihash (base32), shared by every replica on the database.
      // A pin row keeps only what the block cannot say (content type, when); its bytes move to a block.
      await db.schema
        .createTable('ipfs_blocks')
        .addColumn('key', 'varchar(120)', (c) => c.primaryKey())
        .addColumn('bytes', kind === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .execute();
      const rows = await db.selectFrom('pins').select(['cid', 'content']).execute();
      for (const row of rows) {
        await db
          .insertInto('ipfs_blocks')
          .values({ key: blockKey(CID.parse(row.cid as string)), bytes: row.content })
          .onConflict((oc) => oc.column('key').doNothing())
          .execute();
      }
      await db.schema.alterTable('pins').dropColumn('content').execute();
    },
  },
  '0012_native_usd': {
    async up(db: AnyDb) {
      // USD of native- and WETH-quoted tokens: the reference read at each refresh, kept per row.
      const real = 'double precision';
      await db.schema.alterTable('token_market').addColumn('quote_usd', real).execute();
      await db.schema.alterTable('token_market').addColumn('quote_usd_at', 'bigint').execute();
      await db.schema.alterTable('market_state').addColumn('native_usd', real).execute();
      await db.schema.alterTable('market_state').addColumn('native_usd_at', 'bigint').execute();
    },
  },
  '0013_tokens_pool': {
    async up(db: AnyDb) {
      // The indexer finds the launch token of each swapped pool by its pool id, every range.
      await db.schema.createIndex('tokens_pool').on('tokens').columns(['chain_id', 'pool_id']).execute();
    },
  },
  '0014_index_events': {
    async up(db: AnyDb) {
      // The event journal (src/indexer/journal.ts): what the index added or removed, in commit order per
      // chain (seq), written in the same transactions as the index rows. `data` is the event's JSON, made
      // once by the first reader; a removal row (`removes`) copies its event's data at the reorg.
      await db.schema
        .createTable('index_events')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('type', 'varchar(16)', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addColumn('block_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('tx_hash', 'varchar(66)', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('token', 'varchar(42)', (c) => c.notNull())
        .addColumn('removes', 'bigint')
        .addColumn('removed_hw', 'bigint')
        .addColumn('data', 'text')
        .addPrimaryKeyConstraint('index_events_pk', ['chain_id', 'seq'])
        .execute();
      // The highest block the index ever reached per chain (a reorg lowers indexed_through, not this).
      await db.schema.alterTable('index_state').addColumn('high_water', 'bigint').execute();
    },
  },
  '0015_webhooks': {
    async up(db: AnyDb) {
      // Webhook endpoints of API keys; their signing secrets sealed with the gateway secret.
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('key_id', 'varchar(8)', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('types', 'text', (c) => c.notNull())
        .addColumn('chain_id', 'integer')
        .addColumn('token', 'varchar(42)')
        .addColumn('confirmations', 'integer', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_until', 'bigint')
        .addColumn('disabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_endpoints_key').on('webhook_endpoints').column('key_id').execute();
      // How far each endpoint has taken the event journal, per chain.
      await db.schema
        .createTable('webhook_positions')
        .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_positions_pk', ['endpoint_id', 'chain_id'])
        .execute();
      // The outbox: one row per event per endpoint (chain 0: test pings), with its body and its attempts.
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('event_id', 'varchar(80)', (c) => c.notNull())
        .addColumn('event', 'varchar(16)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('state', 'varchar(12)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('locked_until', 'bigint', (c) => c.notNull())
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .addPrimaryKeyConstraint('webhook_deliveries_pk', ['endpoint_id', 'chain_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['state', 'next_attempt_at'])
        .execute();
    },
  },
  '0016_index_at_scale': {
    async up(db: AnyDb) {
      // A wallet's fee positions and claims from one index range, without reading each credit's row (it
      // serves what the index on (recipient, chain_id) did).
      await db.schema
        .createIndex('fee_events_positions')
        .on('fee_events')
        .columns(['recipient', 'chain_id', 'escrow', 'currency', 'kind'])
        .execute();
      await db.schema.dropIndex('fee_events_recipient').execute();
      // Each search word's tokens in launch order: search's newest and oldest walk a word's own range.
      await db.schema
        .alterTable('token_words')
        .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db
        .updateTable('token_words')
        .set({
          created_at: sql`(select t.created_at from tokens t where t.chain_id = token_words.chain_id and t.address = token_words.address)`,
        })
        .execute();
      await db.schema
        .createIndex('token_words_time')
        .on('token_words')
        .columns(['word', 'created_at', 'chain_id', 'address'])
        .execute();
      // A token's search words as one text (' pepe rocket 4711 pep711'): a search that walks a list in
      // its order tests each row for a word prefix by the position of ' w', the same on both databases.
      await db.schema
        .alterTable('tokens')
        .addColumn('search_words', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      const joined = kind === 'postgres' ? sql`string_agg(w.word, ' ')` : sql`group_concat(w.word, ' ')`;
      await db
        .updateTable('tokens')
        .set({
          search_words: sql`coalesce((select ' ' || ${joined} from token_words w where w.chain_id = tokens.chain_id and w.address = tokens.address), '')`,
        })
        .execute();
    },
  },
  '0017_market_at_scale': {
    async up(db: AnyDb) {
      // Trades by block: the market refresh's window and "since the last refresh", and a reorg's delete,
      // read a range instead of every trade of the chain.
      await db.schema
        .createIndex('trades_block')
        .on('trades')
        .columns(['chain_id', 'block_number'])
        .execute();
      // A token's trades carry what the refresh sums (time, trader, quote amount) in the index itself on
      // PostgreSQL: the 24 h window of a hot token is an index-only scan (3x faster on 300k trades than
      // fetching each row), for ~60 bytes a trade. (SQLite keeps its index.)
      if (kind === 'postgres') {
        await sql`create index trades_token_window on trades (chain_id, token, block_number, log_index)
          include (timestamp, trader, quote_amount_raw)`.execute(db);
        await db.schema.dropIndex('trades_token').execute();
      }
      // Ranked values in whole quote units (quoteRank): a moved USD price re-ranks a token by one
      // multiplication in the database. Null until the token's next full computation.
      for (const column of ['market_cap_quote', 'liquidity_quote', 'volume_24h_quote'])
        await db.schema.alterTable('token_market').addColumn(column, 'double precision').execute();
    },
  },
  '0018_holder_balances': {
    async up(db: AnyDb) {
      // Holder balances indexed from Transfer logs (src/store/amounts.ts: sortable text), as of
      // balance_block (their last change, or the block they were read from the chain at); null: not
      // known yet, read from the chain with the indexer's next range (the rows of an index made before
      // balances were indexed, and rows a reorg touched). A token's page of holders is a range of
      // (token, balance, holder).
      await db.schema
        .alterTable('token_holders')
        .addColumn('balance', 'varchar(100)', (c) => c.notNull().defaultTo('010'))
        .execute();
      await db.schema.alterTable('token_holders').addColumn('balance_block', 'bigint').execute();
      await db.schema
        .createIndex('token_holders_balance')
        .on('token_holders')
        .columns(['chain_id', 'token', 'balance', 'holder'])
        .execute();
      await db.schema
        .createIndex('token_holders_changed')
        .on('token_holders')
        .columns(['chain_id', 'balance_block'])
        .execute();
      // Holders with a balance, per token (the holders summary), kept by the indexer.
      await db.schema
        .alterTable('tokens')
        .addColumn('holder_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0019_usd_at_read': {
    async up(db: AnyDb) {
      // USD values are no longer stored per row: a token's USD figures are its quote-unit values times
      // its chain's price for its usd_source (0 none, 1 stablecoin, 2 the native USD price), taken from
      // market_state when read, so a moved native price rewrites no row. The USD-ranked lists merge one
      // index range per (chain, usd_source), each in quote units; the all-chains indexes go (a list of
      // all chains merges its chains' ranges too). usd_source is null until the next refresh sets it.
      await db.schema.alterTable('token_market').addColumn('usd_source', 'integer').execute();
      for (const column of ['market_cap', 'liquidity', 'volume_24h']) {
        for (const scope of ['', 'chain_', 'chain_market_'])
          await db.schema.dropIndex(`token_market_${scope}${column}_usd`).execute();
        await db.schema
          .createIndex(`token_market_chain_${column}_quote`)
          .on('token_market')
          .columns(['chain_id', 'usd_source', `${column}_quote`, 'address'])
          .execute();
        await db.schema
          .createIndex(`token_market_chain_market_${column}_quote`)
          .on('token_market')
          .columns(['chain_id', 'market', 'usd_source', `${column}_quote`, 'address'])
          .execute();
        await db.schema.alterTable('token_market').dropColumn(`${column}_usd`).execute();
      }
      await db.schema.dropIndex('token_market_trending_score').execute();
      await db.schema.alterTable('token_market').dropColumn('quote_usd').execute();
      await db.schema.alterTable('token_market').dropColumn('quote_usd_at').execute();
      await db.schema
        .createIndex('token_market_source_unknown')
        .on('token_market')
        .columns(['chain_id', 'address'])
        .where(sql.ref('usd_source'), 'is', null)
        .execute();
    },
  },
  '0020_market_usd_sources': {
    async up(db: AnyDb) {
      // Which usd_sources a chain's market rows have, as a bitmask (bit s for usd_source s), written by
      // each refresh: a USD-ranked list reads only those ranges. Null (until the next refresh) is every
      // source.
      await db.schema.alterTable('market_state').addColumn('usd_sources', 'integer').execute();
    },
  },
  '0021_trades_token_sums': {
    async up(db: AnyDb) {
      // PostgreSQL: a token's trades index carries what the market refresh sums (side, fee) and the last
      // trade's price too, so that rebuilding a hot token's reserve is an index-only scan: 300k trades
      // read 22k index pages, not 350k heap pages (at 1M tokens: 0.6 s warm, against 1 s warm and 20 s
      // from disk). The index is built anew under another name, then takes the old one's.
      if (kind === 'postgres') {
        await sql`create index trades_token_sums on trades (chain_id, token, block_number, log_index)
          include (timestamp, trader, quote_amount_raw, side, fee_raw, sqrt_price_x96)`.execute(db);
        await db.schema.dropIndex('trades_token_window').execute();
        await sql`alter index trades_token_sums rename to trades_token_window`.execute(db);
      }
    },
  },
  '0022_market_partitions': {
    async up(db: AnyDb) {
      // PostgreSQL: token_market is partitioned by chain, so that a refresh recomputing most of a
      // chain's rows builds the chain's partition anew and swaps it in (store/marketPartitions.ts)
      // rather than update every row in nine indexes. One partition per chain supported when this ran.
      if (kind !== 'postgres') return;
      await sql`alter table token_market rename to token_market_unpartitioned`.execute(db);
      await sql`create table token_market (like token_market_unpartitioned including defaults)
        partition by list (chain_id)`.execute(db);
      for (const chain of [8453, 4663, 143, 5042])
        await sql`create table ${sql.table(`token_market_${chain}`)} partition of token_market
          for values in (${sql.lit(chain)})`.execute(db);
      await sql`insert into token_market select * from token_market_unpartitioned`.execute(db);
      // (Its indexes go with it: the names are the parent's again.)
      await sql`drop table token_market_unpartitioned`.execute(db);
      await sql`alter table token_market add constraint token_market_pk primary key (chain_id, address)`.execute(
        db,
      );
      for (const column of ['market_cap', 'liquidity', 'volume_24h']) {
        await sql`create index ${sql.id(`token_market_chain_${column}_quote`)} on token_market
          (chain_id, usd_source, ${sql.ref(`${column}_quote`)}, address)`.execute(db);
        await sql`create index ${sql.id(`token_market_chain_market_${column}_quote`)} on token_market
          (chain_id, market, usd_source, ${sql.ref(`${column}_quote`)}, address)`.execute(db);
      }
      await sql`create index token_market_chain_trending_score on token_market
        (chain_id, trending_score, address)`.execute(db);
      await sql`create index token_market_chain_market_trending_score on token_market
        (chain_id, market, trending_score, address)`.execute(db);
      await sql`create index token_market_source_unknown on token_market (chain_id, address)
        where usd_source is null`.execute(db);
      await sql`analyze token_market`.execute(db);
    },
  },
  '0023_token_words_token': {
    async up(db: AnyDb) {
      // A token's words by the token: a metadata update replaces them (indexer.ts: refreshFields), which
      // at 1M tokens read all 4M words for each token updated (a launch among them), in the range's write.
      await db.schema
        .createIndex('token_words_token')
        .on('token_words')
        .columns(['chain_id', 'address'])
        .execute();
    },
  },
  '0024_token_totals': {
    async up(db: AnyDb) {
      // Per traded token, what its trades add up to, kept by the indexer (indexer/tradeTotals.ts), so
      // that the market refresh sums no token's history; by last block, the tokens traded since a block.
      await db.schema
        .createTable('token_totals')
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('address', 'varchar(42)', (c) => c.notNull())
        .addColumn('last_block', 'bigint', (c) => c.notNull())
        .addColumn('reserve_quote_raw', 'text', (c) => c.notNull())
        .addColumn('sqrt_price_x96', 'text')
        .addPrimaryKeyConstraint('token_totals_pk', ['chain_id', 'address'])
        .execute();
      await db.schema
        .createIndex('token_totals_last_block')
        .on('token_totals')
        .columns(['chain_id', 'last_block'])
        .execute();
      // Counted from the trades indexed so far, as tradeTotals.ts counts them, a chain at a time.
      const sum = (side: string, column: string) =>
        kind === 'postgres'
          ? sql<string>`coalesce(sum(case when side = ${side} then ${sql.ref(column)}::numeric end), 0)::text`
          : sql<string>`amount_sum(case when side = ${side} then ${sql.ref(column)} end)`;
      const chains = await db.selectFrom('trades').select('chain_id').distinct().execute();
      for (const { chain_id: chain } of chains as { chain_id: number }[]) {
        const { rows } = await sql<{
          token: string;
          last_block: string | number;
          bought: string;
          buy_fees: string;
          sold: string;
          sell_fees: string;
          sqrt: string | null;
        }>`select g.*, (select l.sqrt_price_x96 from trades l where l.chain_id = ${chain}
            and l.token = g.token order by l.block_number desc, l.log_index desc limit 1) as sqrt
          from (select token, max(block_number) as last_block, ${sum('buy', 'quote_amount_raw')} as bought,
            ${sum('buy', 'fee_raw')} as buy_fees, ${sum('sell', 'quote_amount_raw')} as sold,
            ${sum('sell', 'fee_raw')} as sell_fees from trades where chain_id = ${chain} group by token) g`.execute(
          db,
        );
        for (let i = 0; i < rows.length; i += 500)
          await db
            .insertInto('token_totals')
            .values(
              rows.slice(i, i + 500).map((r) => ({
                chain_id: chain,
                address: r.token,
                last_block: Number(r.last_block),
                reserve_quote_raw: (
                  BigInt(r.bought) -
                  BigInt(r.buy_fees) -
                  (BigInt(r.sold) + BigInt(r.sell_fees))
                ).toString(),
                sqrt_price_x96: r.sqrt,
              })),
            )
            .execute();
      }
    },
  },
  '0025_token_words_lead': {
    async up(db: AnyDb) {
      // PostgreSQL: words by their first two characters, in launch order, so that a query word starting
      // many words ("47": 11,111 of them at 1M tokens) is walked in the page's order, not read whole and
      // sorted (tokenQueries.ts: readTokenPage). Its rows' words ride along for the prefix test.
      if (kind !== 'postgres') return;
      await sql`create index token_words_lead on token_words (left(word, 2), created_at, chain_id, address) include (word)`.execute(
        db,
      );
      // (The statistics of its expression, for the planner's estimates.)
      await sql`analyze token_words`.execute(db);
    },
  },
  '0026_market_search_words': {
    async up(db: AnyDb) {
      // A market row carries its token's search words (kept with the token's by the indexer, and written
      // from them by the refresh), so that a ranked search tests them on the rows its range walks, not on
      // a probe of each row's token; on PostgreSQL the ranked indexes of all markets carry them, so that
      // the walk reads its index alone (25 B a row more in each of the four).
      await db.schema
        .alterTable('token_market')
        .addColumn('search_words', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      if (kind === 'sqlite') return fillSearchWords(db, 'token_market');
      // (PostgreSQL: rewritten without its ranked indexes, which are built after.)
      const ranked = ['market_cap_quote', 'liquidity_quote', 'volume_24h_quote', 'trending_score'];
      for (const column of ranked)
        for (const scope of ['chain', 'chain_market'])
          await db.schema.dropIndex(`token_market_${scope}_${column}`).execute();
      await rewriteWithSearchWords(db, 'token_market');
      for (const column of ranked) {
        const source = column === 'trending_score' ? sql`` : sql`usd_source,`;
        await sql`create index ${sql.id(`token_market_chain_${column}`)} on token_market
          (chain_id, ${source} ${sql.ref(column)}, address) include (search_words)`.execute(db);
        await sql`create index ${sql.id(`token_market_chain_market_${column}`)} on token_market
          (chain_id, market, ${source} ${sql.ref(column)}, address)`.execute(db);
      }
      await sql`analyze token_market`.execute(db);
    },
  },
  '0027_fee_claims_amounts': {
    async up(db: AnyDb) {
      // PostgreSQL: a wallet's positions index carries each event's amount, so that a position's claims
      // are summed from the index alone: the bench's busy wallet has 264 claims among 40k credits, read
      // as 264 heap rows (0.74 ms, warm) for each read of its fee positions. Built anew under another
      // name, then it takes the old one's.
      if (kind !== 'postgres') return;
      await sql`create index fee_events_claims on fee_events (recipient, chain_id, escrow, currency, kind)
        include (amount)`.execute(db);
      await db.schema.dropIndex('fee_events_positions').execute();
      await sql`alter index fee_events_claims rename to fee_events_positions`.execute(db);
    },
  },
  '0028_block_ordered_keys': {
    async up(db: AnyDb) {
      // PostgreSQL: trades, fee credits and fee events are keyed in block order, not by transaction
      // hash: a range's rows then go to the right edge of their keys, where a hash key sent each row to
      // a random page of an index larger than memory, each page then written whole to the WAL (a 200k-
      // swap pass at 1M tokens read 32k pages of these keys and trades_block; 12k now, their new pages).
      // Lookups by transaction name its block too. The trades key serves what trades_block did.
      // (SQLite keeps its keys: changing one rebuilds its table.)
      if (kind !== 'postgres') return;
      for (const table of ['trades', 'fee_credits', 'fee_events']) {
        const key = sql.id(`${table}_pk`);
        await sql`alter table ${sql.table(table)} drop constraint ${key},
          add constraint ${key} primary key (chain_id, block_number, log_index)`.execute(db);
      }
      await db.schema.dropIndex('trades_block').execute();
    },
  },
  '0029_word_rows_search_words': {
    async up(db: AnyDb) {
      // A word row carries its token's search words, so that a search of several words tests the others
      // on the rows of the one it walks, not on a probe of each row's token; on PostgreSQL the walk's
      // index (token_words_lead) carries them, so that it reads that index alone ("rocket 47" at 1M
      // tokens: 178 rows walked, each with its token probed, for 26).
      await db.schema
        .alterTable('token_words')
        .addColumn('search_words', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      if (kind === 'sqlite') return fillSearchWords(db, 'token_words');
      // (PostgreSQL: rewritten without its key and indexes, which are built after.)
      await sql`alter table token_words alter column search_words drop default`.execute(db);
      await sql`alter table token_words drop constraint token_words_pk`.execute(db);
      for (const index of ['token_words_time', 'token_words_token', 'token_words_lead'])
        await db.schema.dropIndex(index).execute();
      await rewriteWithSearchWords(db, 'token_words');
      await sql`alter table token_words add constraint token_words_pk primary key (word, chain_id, address)`.execute(
        db,
      );
      await sql`create index token_words_time on token_words (word, created_at, chain_id, address)`.execute(
        db,
      );
      await sql`create index token_words_token on token_words (chain_id, address)`.execute(db);
      await sql`create index token_words_lead on token_words (left(word, 2), created_at, chain_id, address)
        include (word, search_words)`.execute(db);
      await sql`analyze token_words`.execute(db);
    },
  },
  '0030_announcements_page_order': {
    async up(db: AnyDb) {
      // A token's announcements by their page's whole order (block, then log index). Ended at the block,
      // the index had a prepared read's kept plan, costed for a token with few, read a hot token's every
      // announcement and sort them for its page (2,002 at 1M tokens: 112 buffers for 17 at 100k).
      await db.schema.dropIndex('announcements_token').execute();
      await db.schema
        .createIndex('announcements_token')
        .on('announcements')
        .columns(['chain_id', 'token', 'block_number', 'log_index'])
        .execute();
    },
  },
  '0031_tokens_market_inputs': {
    async up(db: AnyDb) {
      // PostgreSQL: a chain's tokens with the columns a full market refresh reads of them (its quiet
      // rows, marketRefresh.ts: writeQuietRows), read from this index alone. Token rows are wide (1.1 KB
      // at 1M tokens, the launch's raw data) and, after an ingest, mostly not cached: the refresh's
      // read of chain 8453's 400k rows fetched 91k heap pages (9.9 s of a 52-57 s full refresh); from
      // the index, 9.8k pages (1.9 s against 7.7 s with nothing cached).
      if (kind !== 'postgres') return;
      await sql`create index tokens_market_inputs on tokens (chain_id, address)
        include (market, suite_id, quote_address, launch_supply, search_words)`.execute(db);
    },
  },
  '0032_fee_positions': {
    async up(db: AnyDb) {
      // A wallet's fee positions (escrow and currency), a row each, first seen at `block_number` (a reorg
      // below it drops the row). Escrow Credited events were a row each, three a swap, read only to find
      // these: a 200k-swap backfill wrote 600k of them, 8.4 s of its 29 s of writes. Claims stay events.
      await db.schema
        .createTable('fee_positions')
        .addColumn('recipient', 'varchar(42)', (c) => c.notNull())
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('escrow', 'varchar(42)', (c) => c.notNull())
        .addColumn('currency', 'varchar(42)', (c) => c.notNull())
        .addColumn('block_number', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('fee_positions_pk', ['recipient', 'chain_id', 'escrow', 'currency'])
        .execute();
      await db.schema
        .createIndex('fee_positions_block')
        .on('fee_positions')
        .columns(['chain_id', 'block_number'])
        .execute();
      await sql`insert into fee_positions (recipient, chain_id, escrow, currency, block_number)
        select recipient, chain_id, escrow, currency, min(block_number) from fee_events
        group by recipient, chain_id, escrow, currency`.execute(db);
      // Only the claims stay (PostgreSQL: copied out and back, so that the table and its indexes do
      // not keep the credits' dead rows), and their index is named for them.
      await db.schema.dropIndex('fee_events_positions').execute();
      if (kind === 'postgres') {
        await sql`create temporary table fee_claims as select * from fee_events where kind = 'claimed'`.execute(
          db,
        );
        await sql`truncate fee_events`.execute(db);
        await sql`insert into fee_events select * from fee_claims`.execute(db);
        await sql`drop table fee_claims`.execute(db);
        await sql`create index fee_events_claims on fee_events (recipient, chain_id, escrow, currency, kind)
          include (amount)`.execute(db);
      } else {
        await sql`delete from fee_events where kind <> 'claimed'`.execute(db);
        await db.schema
          .createIndex('fee_events_claims')
          .on('fee_events')
          .columns(['recipient', 'chain_id', 'escrow', 'currency', 'kind'])
          .execute();
      }
    },
  },
});

/**
 * Applies every pending migration. PostgreSQL serialises concurrent migrators with kysely's advisory
 * lock; SQLite has no such lock, so when two processes start on one fresh file together the loser's
 * transaction fails and it simply tries again, finding the work done.
 */
export async function migrate(
  db: AnyDb,
  kind: 'sqlite' | 'postgres',
  attempts = 10,
  /** The last migration to apply (tests of an upgrade); every one by default. */
  to?: string,
): Promise<void> {
  const migrations = migrationsFor(kind);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = to ? await migrator.migrateTo(to) : await migrator.migrateToLatest();
    if (!error) return;
    if (attempt >= attempts) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName;
      throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message}`);
    }
    // Jittered, so that processes which collided once do not collide again in step.
    await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
  }
}
