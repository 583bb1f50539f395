/**
 * postgres/pool.ts: a connection the server ends at the very end of its handshake does not end
 * the process. A TCP relay in front of a real PostgreSQL hands the pool's first new connection
 * its handshake's ReadyForQuery and the server's FATAL 57P01 (what pg_terminate_backend sends) in
 * one read, as a process too busy to read between them receives them.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgresServer, type PostgresServer } from '../test/postgres-server.ts'
import { openPool } from './pool.ts'
import { isDatabaseUnavailable, transaction } from './retry.ts'

/** An ErrorResponse as PostgreSQL sends it when it terminates a backend. */
function terminateMessage(): Buffer {
  const fields = Buffer.concat([
    ...[['S', 'FATAL'], ['V', 'FATAL'], ['C', '57P01'], ['M', 'terminating connection due to administrator command']]
      .map(([k, v]) => Buffer.from(`${k}${v}\0`)),
    Buffer.from('\0'),
  ])
  const head = Buffer.alloc(5)
  head.write('E', 0)
  head.writeInt32BE(fields.length + 4, 1)
  return Buffer.concat([head, fields])
}

/** The offset just past the first ReadyForQuery ('Z') message in `data`, or -1 while none is whole. */
function afterReadyForQuery(data: Buffer): number {
  for (let at = 0; at + 5 <= data.length;) {
    const end = at + 1 + data.readInt32BE(at + 1)
    if (end > data.length) return -1
    if (data[at] === 0x5a) return end
    at = end
  }
  return -1
}

/** Relays to `port`; its connection number `killed` (from 1) gets the FATAL with its handshake's end, then closes. */
async function relay(port: number, killed: number): Promise<Server> {
  let count = 0
  const server = createServer((client: Socket) => {
    const upstream = connect(port, '127.0.0.1')
    const kill = ++count === killed
    let held = Buffer.alloc(0)
    client.on('data', (b) => upstream.write(b))
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    upstream.on('data', (b) => {
      if (!kill) return void client.write(b)
      held = Buffer.concat([held, b])
      const end = afterReadyForQuery(held)
      if (end < 0) return
      upstream.destroy()
      client.end(Buffer.concat([held.subarray(0, end), terminateMessage()]))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return server
}

let pg: PostgresServer
beforeAll(async () => {
  pg = await startPostgresServer()
}, 60_000)
afterAll(async () => {
  await pg?.stop()
})

describe('a pooled connection the server ends as its handshake completes', () => {
  it('fails only the transaction that got it (database unavailable); the process goes on and the next one answers', async () => {
    const url = await pg.createDatabase()
    // The pool's first connection (its migration's) is left alone; its second is ended.
    const front = await relay(Number(new URL(url).port), 2)
    const relayed = new URL(url)
    relayed.port = String((front.address() as AddressInfo).port)
    const pool = await openPool({ url: relayed.toString(), poolSize: 2 })
    const held = await pool.connect()
    let released = false
    try {
      const err = await transaction(pool, (client) => client.query('SELECT 1 AS one')).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(Error)
      expect(isDatabaseUnavailable(err)).toBe(true)
      held.release()
      released = true
      const { rows } = await transaction(pool, (client) => client.query<{ one: number }>('SELECT 1 AS one'))
      expect(rows).toEqual([{ one: 1 }])
    } finally {
      if (!released) held.release()
      await pool.end()
      await new Promise<void>((r) => front.close(() => r()))
    }
  }, 60_000)
})
