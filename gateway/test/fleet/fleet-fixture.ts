/**
 * What every fleet test sets up and tears down: an embedded PostgreSQL server with a fresh
 * database, a shared bearer token, a webhook receiver on 127.0.0.1 and the member processes.
 * `useFleet()` registers the teardown with vitest: members are killed (a stalled one continued
 * first, so the kill lands), the receiver closed and the server stopped, whatever the test did.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'
import type { Member } from './fleet-member.ts'

export interface Fleet {
  /** A fresh, empty database on the fixture's server (started on first use). */
  database(): Promise<string>
  /** Stops the server now (the database going away under a running fleet). */
  stopDatabase(): Promise<void>
  /** Every webhook body is acknowledged, parsed and handed to `onEvent`; answers the receiver's URL. */
  receiver<T = unknown>(onEvent: (event: T) => void): Promise<string>
  /** The members a test started; all are killed after it. */
  members: Member[]
  token: string
}

export function useFleet(): Fleet {
  let server: PostgresServer | undefined
  const receivers: Server[] = []
  const fleet: Fleet = {
    members: [],
    token: randomBytes(8).toString('hex'),
    async database() {
      server ??= await startPostgresServer()
      return server.createDatabase()
    },
    async stopDatabase() {
      await server?.stop()
      server = undefined
    },
    async receiver<T>(onEvent: (event: T) => void) {
      const receiver = createServer((req, res) => {
        let text = ''
        req.on('data', (c) => { text += c })
        req.on('end', () => {
          res.end()
          onEvent(JSON.parse(text) as T)
        })
      })
      receivers.push(receiver)
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
      return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`
    },
  }
  afterEach(async () => {
    for (const m of fleet.members.splice(0)) {
      if (m.child.exitCode !== null || m.child.signalCode !== null) continue
      m.child.kill('SIGCONT')
      m.child.kill('SIGKILL')
    }
    for (const receiver of receivers.splice(0)) {
      receiver.closeAllConnections()
      await new Promise<void>((r) => receiver.close(() => r()))
    }
    await server?.stop()
    server = undefined
    fleet.token = randomBytes(8).toString('hex')
  })
  return fleet
}
