/**
 * Where the queue bench's time goes on the server: runs one round of each side of row (h)
 * (`bench/queue-bench.ts`, the same worker processes) on a server with pg_stat_statements
 * (`track = all`, so statements inside the claim functions and triggers count too), then prints
 * each statement's calls and mean µs per call, and the jobs table's updates and HOT updates.
 * `npx tsx bench/queue-profile.ts [processes]`
 */
import pg from 'pg'
import { startPostgresServer } from '../gateway/test/postgres-server.ts'
import { graphile, ours } from './queue-bench.ts'

const processes = Number(process.argv[2] ?? 1)
const server = await startPostgresServer({ settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } })
try {
  for (const [side, run, table] of [['graphile-worker', graphile, 'graphile_worker._private_jobs'], ['ours', ours, 'gateway_jobs']] as const) {
    const url = await server.createDatabase()
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    await db.query('CREATE EXTENSION pg_stat_statements')
    await db.query('SELECT pg_stat_statements_reset()')
    const rate = await run(url, processes)
    const { rows } = await db.query<{ calls: string; mean: number; total: number; query: string }>(`
      SELECT calls, mean_exec_time * 1000 AS mean, total_exec_time AS total, regexp_replace(query, '\\s+', ' ', 'g') AS query
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls >= 100
      ORDER BY total_exec_time DESC`)
    console.log(`\n${side}: ${rate.toFixed(0)} jobs/s with ${processes} process(es)`)
    for (const r of rows) console.log(`${String(r.calls).padStart(7)} ${r.mean.toFixed(1).padStart(7)} µs  ${r.query.slice(0, 150)}`)
    const [schema, name] = table.includes('.') ? table.split('.') : ['public', table]
    const stats = await db.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2`, [schema, name])
    console.log(stats.rows[0])
    await db.end()
  }
} finally {
  await server.stop()
}
