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

/** `url` without its namespace parameter: the server (and database) it lives on. */
function serverOf(url: string): string {
  return url.replace(/([?&])namespace=[^&]*(&|$)/, (_m, sep: string, end: string) =>
    end === '&' ? sep : '',
  );
}

/**
 * Deletes everything under the namespaces of `urls` (a schema, tables named with a prefix, or
 * keys under a prefix), on the server each URL names (the shared server, or a test's own
 * instance on another port).
 */
export async function dropNamespaces(server: ServerName, urls: readonly string[]): Promise<void> {
  const byServer = new Map<string, string[]>();
  for (const u of urls) {
    const name = new URL(u.replace(/^etcd:/, 'http:')).searchParams.get('namespace')!;
    const at = serverOf(u);
    byServer.set(at, [...(byServer.get(at) ?? []), name]);
  }
  for (const [at, names] of byServer) await dropAt(server, at, names);
}

async function dropAt(server: ServerName, at: string, names: readonly string[]): Promise<void> {
  if (server === 'postgres') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: at });
    await client.connect();
    for (const n of names) await client.query(`DROP SCHEMA IF EXISTS "${n}" CASCADE`);
    await client.end();
  } else if (server === 'mysql') {
    const { default: mysql } = await import('mysql2/promise');
    const conn = await mysql.createConnection(at);
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
    const redis = new Redis(at);
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
    const client = new Etcd3({ hosts: at.replace(/^etcd:/, 'http:') });
    for (const n of names) await client.delete().prefix(`/${n}/`);
    client.close();
  }
}
