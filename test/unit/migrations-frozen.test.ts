import { createHash } from 'node:crypto';
import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/platform/db/migrations/index.js';

/**
 * A migration that ran in a database is history: moving its code around (e.g. its long SQL into a
 * sibling module of constants) must not change one byte of what it sends. Each migration's `up` and
 * `down` run here against a driver that records the statements (text and parameters) instead of
 * executing them; their digest must equal the one recorded when the migration was written. No
 * database is needed: the statements of every migration are plain SQL that does not depend on what
 * an earlier statement returned.
 *
 * A migration adds its line here once it has shipped (print the digests with
 * `PRINT_MIGRATION_DIGESTS=1`); a changed digest of a listed one means the change must become a new
 * migration instead.
 */
const FROZEN: Record<string, { up: string; down: string }> = {
  '2026_11_22_0001_foundation': {
    up: '12:b950ea45ecd8d941db16b273669579d76becb578402c1aec9be7557e0c63c17a',
    down: '6:0bfbecc6421b72e6aceedb962c8cf1321113ae41a5f68e61256fa90699868048',
  },
  '2026_11_22_0002_catalog': {
    up: '15:9194bcb2a279b6b0ac0a17630dfb38bd423f5983e07d06a47e6600b68eb13852',
    down: '6:3d6cc897272cefacad7b9e3d41c4b2686aa620364420386976c9b876b8305a12',
  },
  '2026_11_22_0003_idempotency': {
    up: '2:184ed000df8d4b1e125fac13f4405dc33808656714a898ec2dfd8da472dd0e81',
    down: '1:ea5c6d972c71cfba51fad11f60398f852ee0662ed8e2ba88bd7898a0d64efc99',
  },
  '2026_11_23_0004_discounts': {
    up: '9:bc16bc48f8fa202c322cfc34ec8d14d95ce06b22fd69937a000b19142850a00a',
    down: '4:014ccd09d561d0904fa01170cf3e26cd1196d8259b1d3cbf4ac5c82d9d97bbad',
  },
  '2026_11_23_0005_orders': {
    up: '14:795b2dd2db317bd3213f9c05d36edd67f27db0652e3c90abbb782734835b0b1a',
    down: '6:1346bf3bb8cff806d6616b7301e7660fa80981928130f8ba4848ab64d2a4dc5c',
  },
  '2026_11_23_0006_webhooks': {
    up: '10:339517c18750db0e8faedfa1b037f903a3dcc84bcddd851e35f8e81458ccc81c',
    down: '4:50905b5cc14ceb58614c0296328ef9179c0f4ec290a21993afe20180257717d2',
  },
  '2026_11_23_0007_customer_accounts': {
    up: '10:900642a61b26afb5b40d65229e681f4a5dff388e6da7cf9dc642be40498c547a',
    down: '6:7975440f0f92473faaca44fc640dba60ddc8a5e94619bd427715da5b9c60c58b',
  },
  '2026_11_23_0009_admin_sessions': {
    up: '2:c4f82d068fd67e8ed8d6237003f322088c7f49e00751270bd07eda13b775e061',
    down: '1:ce0da46294f8e56b7fed93e5e48d0913e84a761b9e5f72e26cbcd5f3a0b935f5',
  },
  '2026_11_23_0010_analytics': {
    up: '32:1a14a33142c61790d54586d615cde8b2b5e9f53215931deb5b091610c8b227a3',
    down: '26:6954b04b6d67cbc8fcbe255dc2f750b0617307a0a8e3b2a2d7b6bd7813bd1591',
  },
  '2026_11_23_0011_uuid_v7': {
    up: '1:a877e1a3adeda4bad0e15e667c2643c7075905902ef1168c7fc741d31b090ab1',
    down: '1:092242567965a06b71b7900eb954d3520cf16489186e7eb6cbbc02840108c0dc',
  },
  '2026_11_25_0012_expiry_indexes': {
    up: '3:655dfc218ec752cb10e0651ae7db168f3eb7bed4df5293bd220dbca7f30cff9f',
    down: '3:dceb6a6eed104febd498b7b6e20c47ac488a85688f68ad08101a8c87d1a791c3',
  },
  '2026_11_25_0013_idempotency_resource': {
    up: '1:fb69d2edf324c3abb797541eeaef24eccd07b8cb99280f9bc5e1073100136ac2',
    down: '1:91e63c8baaa0ff3046b3c4152aba82395ffca6c4a3a07ba56a90c37d6c13139a',
  },
  '2026_11_25_0021_payment_statuses': {
    up: '2:4fee5f1b6533f34e7377a648a11c85afc2e073308ba1c01c71c0f4609d3f1eb5',
    down: '2:16ee7b989d46ebb3af5abd935ae4fec876ef0a43ae38695b504653a4723d01ff',
  },
  '2026_11_25_0022_carts': {
    up: '9:baeade42ed54a6f6202db20448d4be975825b4451d4c8abe44258aa9248b0198',
    down: '3:d51a1a9c0d23df3b305a9ddd425b2091ab36528d1971ccb3e89de90dfdf45081',
  },
  '2026_11_25_0023_stripe_payments': {
    up: '5:8f1785f1bf6f94fc86464aba76a6680c1eb8c89c79d92bec885418579b4591f9',
    down: '3:24164f877b7f59c812b7e262a70b94da3ee473601e1c820de4a0e8ccf1cea2da',
  },
  '2026_11_25_0024_refunds': {
    up: '5:64d3951577e030c06325132cb7233da438f0e86b7df1c3fe9bf22fd84a630f68',
    down: '2:94e3ca8117c265849277a6a52fc1fc3d7deb9eb18514e2326382ebc2d105105c',
  },
  '2026_11_26_0025_store_custom_domains': {
    up: '2:29e1e23c460c80a26237f60cd5a70b5ca91b2cdd88ad56294b53a82e7ebba6d1',
    down: '1:3bbfe7e9db8d951635ef7860cf75084fda8299e5e7b05b5c9c4b5af3ccee04f4',
  },
  '2026_11_26_0027_product_counts': {
    up: '10:ff7ad0c4f5fee55074a140b4ffc7d1ee8bb57fefafd6cfb1bbdb15f8958cad16',
    down: '5:eba2bf770dd1e21d0dcef77a04d65bc8bfb450e3c8076ff5b7d0bf0596050336',
  },
  '2026_11_28_0030_analytics_rebuild_joins': {
    up: '1:de645464d070a1172818afd0dc79bf524cf69d47dc7b6a2e273405714f7f128c',
    down: '1:9c41175aea6f76163c54a91f744944aec314c296ff1d20289ce61cecb0a0b65d',
  },
  '2026_11_28_0034_order_history': {
    up: '3:881f535fcf654c7c2849501e3d0e4fc50cac3e920fefd9f8b4b618b5147e709c',
    down: '1:0938b3de785f25b1187c7529d52760ca46e1a53786940c46c2e9e66eed4d0acb',
  },
  '2026_11_28_0035_webhook_last_test': {
    up: '1:5b3f6354e343e0f1ba43ed7eb4fb8a16ca076e247b8e2ca7d8d415e0d5d37970',
    down: '1:89c1e3443c64769f1860d5d7d6c8984190b6cee4f9e093ae34d567b7c9ca2809',
  },
  '2026_11_28_0036_regions': {
    up: '13:85cb5647cc8b3e5cba444b3b7a4eb5fb87245aaab7b12422d6178ef24599f505',
    down: '10:cbabaadf232d4e49499389c12f5978b65c6b1ff22134295089f641c5a45f4ede',
  },
  '2026_11_28_0040_analytics_shipping_tax': {
    up: '11:f2ddc2ae2569c596c8673b5bb9b8c1ec65b29913386e1e44df11581d990d92cb',
    down: '12:53789de035acf8bd7017b3607a4b5492936b114f4e519660da875cb4d942c1a6',
  },
  '2026_12_07_0041_notifications': {
    up: '7:fa04ee5e2f06da8eb44df3806c4da85fa9cbd514f568772a23fce9291c9ebe5f',
    down: '3:10f5dfe23dc1b41cb09f1a80a456017e783c5cd968d8457b9fe9565f246baf7f',
  },
  '2026_12_07_0042_teams_platform': {
    up: '19:ed616e2b0ddec8bbd13a916a3ff16049bf8284114cedfdf051386734249b80a9',
    down: '14:4df151a158289c8ab2accae57e5cc7b7b1d3a8b8bd50028346e2c6a721e223bf',
  },
};

async function recorded(run: (db: Kysely<unknown>) => Promise<void>): Promise<string> {
  const statements: CompiledQuery[] = [];
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (inner) => new PostgresIntrospector(inner),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      statements.push(event.query);
    },
  });
  await run(db);
  await db.destroy();
  const text = JSON.stringify(statements.map((q) => [q.sql, q.parameters]));
  return `${statements.length}:${createHash('sha256').update(text).digest('hex')}`;
}

describe('migrations that ran are frozen', async () => {
  const migrations = await migrationProvider.getMigrations();
  const digests = Object.fromEntries(
    await Promise.all(
      // Only the frozen ones: a newer migration may read the database to decide what to send (the
      // tenant foreign keys check existing data), which a recording driver cannot answer.
      Object.entries(migrations)
        .filter(([name]) => name in FROZEN)
        .map(async ([name, migration]) => [
          name,
          {
            up: await recorded((db) => migration.up(db)),
            down: migration.down ? await recorded((db) => migration.down?.(db) ?? Promise.resolve()) : '',
          },
        ]),
    ),
  ) as Record<string, { up: string; down: string }>;
  if (process.env.PRINT_MIGRATION_DIGESTS) console.log(JSON.stringify(digests, null, 2));

  it.each(Object.keys(FROZEN))('%s sends the same statements as when it was written', (name) => {
    expect(digests[name]).toEqual(FROZEN[name]);
  });
});
