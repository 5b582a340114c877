import type { SandboxStore } from '../../billing/ports.js';
import type { Queryable } from '../db.js';

/** The sandbox processor's objects, one JSON document per row. */
export function sqlSandboxStore(db: Queryable): SandboxStore {
  return {
    async get<T>(id: string) {
      const r = await db.query<{ data: T }>('SELECT data FROM billing_sandbox_objects WHERE id = $1', [id]);
      return r.rows[0]?.data ?? null;
    },
    async put(id, type, data) {
      await db.query(
        `INSERT INTO billing_sandbox_objects (id, type, data) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`,
        [id, type, JSON.stringify(data)],
      );
    },
    async insert(id, type, data) {
      const r = await db.query('INSERT INTO billing_sandbox_objects (id, type, data) VALUES ($1, $2, $3::jsonb) ON CONFLICT (id) DO NOTHING', [id, type, JSON.stringify(data)]);
      return r.rowCount === 1;
    },
    async list<T>(type: string, where: { delivered?: boolean } = {}) {
      const r =
        where.delivered === undefined
          ? await db.query<{ data: T }>('SELECT data FROM billing_sandbox_objects WHERE type = $1 ORDER BY created_at', [type])
          : await db.query<{ data: T }>(`SELECT data FROM billing_sandbox_objects WHERE type = $1 AND COALESCE((data->>'delivered')::boolean, false) = $2 ORDER BY created_at`, [
              type,
              where.delivered,
            ]);
      return r.rows.map((x) => x.data);
    },
  };
}
