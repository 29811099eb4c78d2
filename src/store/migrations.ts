// Schema migrations, in code, applied in order at start (kysely's Migrator keeps the record and the lock).
import { type Kysely, type Migration, Migrator } from 'kysely';

// Migrations run against whatever schema exists at their point in history, so they take an untyped db.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type AnyDb = Kysely<any>;

const migrations: Record<string, Migration> = {
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
};

/**
 * Applies every pending migration. PostgreSQL serialises concurrent migrators with kysely's advisory
 * lock; SQLite has no such lock, so when two processes start on one fresh file together the loser's
 * transaction fails and it simply tries again, finding the work done.
 */
export async function migrate(db: AnyDb, attempts = 5): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    if (attempt >= attempts) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName;
      throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 100 * attempt));
  }
}
