// Fresh store URLs with a namespace of their own on the shared servers, and their clean-up.
import { randomBytes } from 'node:crypto';

export const SERVERS = {
  postgres: { host: '127.0.0.1', port: 5432, url: 'postgres://postgres@127.0.0.1:5432/test' },
  redis: { host: '127.0.0.1', port: 6379, url: 'redis://127.0.0.1:6379' },
  etcd: { host: '127.0.0.1', port: 2379, url: 'etcd://127.0.0.1:2379' },
  mysql: { host: '127.0.0.1', port: 3306, url: 'mysql://root@127.0.0.1:3306/test' },
} as const;

export type ServerName = keyof typeof SERVERS;

/** A URL of `server` with a new namespace `t_<tag>_<random>`. */
export function freshNamespaceUrl(
  server: ServerName,
  tag: string,
  base: string = SERVERS[server].url,
): string {
  const ns = `t_${tag}_${randomBytes(4).toString('hex')}`;
  return `${base}${base.includes('?') ? '&' : '?'}namespace=${ns}`;
}

/**
 * Deletes everything under the namespaces of `urls` (a schema, tables named with a prefix, or
 * keys under a prefix).
 */
export async function dropNamespaces(server: ServerName, urls: readonly string[]): Promise<void> {
  const names = urls.map(
    (u) => new URL(u.replace(/^etcd:/, 'http:')).searchParams.get('namespace')!,
  );
  if (names.length === 0) return;
  if (server === 'postgres') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: SERVERS.postgres.url });
    await client.connect();
    for (const n of names) await client.query(`DROP SCHEMA IF EXISTS "${n}" CASCADE`);
    await client.end();
  } else if (server === 'mysql') {
    const { default: mysql } = await import('mysql2/promise');
    const conn = await mysql.createConnection(SERVERS.mysql.url);
    for (const n of names) {
      const [rows] = await conn.query(
        'SELECT table_name AS t FROM information_schema.tables ' +
          'WHERE table_schema = DATABASE() AND LEFT(table_name, CHAR_LENGTH(?) + 1) = CONCAT(?, "_")',
        [n, n],
      );
      for (const { t } of rows as { t: string }[]) {
        await conn.query(`DROP TABLE IF EXISTS \`${t}\``);
      }
    }
    await conn.end();
  } else if (server === 'redis') {
    const { Redis } = await import('ioredis');
    const redis = new Redis(SERVERS.redis.url);
    for (const n of names) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${n}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
    redis.disconnect();
  } else {
    const { Etcd3 } = await import('etcd3');
    const client = new Etcd3({ hosts: 'http://127.0.0.1:2379' });
    for (const n of names) await client.delete().prefix(`/${n}/`);
    client.close();
  }
}
