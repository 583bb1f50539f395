/**
 * stopListening under a storm of connection attempts from another process (scheduled apart from
 * the listener, as real clients are): every attempt is answered or refused, none reset. The
 * plain close, under the same storm, resets connections the kernel had queued or was completing,
 * which shows the storm reaches the moment that matters.
 */
import { spawn } from 'node:child_process'
import { createServer, Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { stopListening } from './listener-stop.ts'

/**
 * `clients` loops in a child process, each connecting, sending a byte and awaiting the answer
 * until its connection is refused; it prints "warm" after 50 answers, then its outcome counts.
 */
const STORM = `
const { connect } = require('node:net')
const [port, clients] = process.argv.slice(1).map(Number)
const counts = {}
let answered = 0
Promise.all(Array.from({ length: clients }, async () => {
  for (;;) {
    const outcome = await new Promise((done) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('x'))
      socket.on('data', () => { socket.destroy(); done('answered') })
      socket.on('error', (err) => done(err.code || err.message))
      socket.on('close', () => done('closed unanswered'))
    })
    counts[outcome] = (counts[outcome] || 0) + 1
    if (outcome === 'answered' && ++answered === 50) console.log('warm')
    if (outcome === 'ECONNREFUSED') return
  }
})).then(() => console.log(JSON.stringify(counts)))
`

const children: Array<{ kill(): void }> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill()
})

/** One storm against a fresh listener, stopped by `stop` once the storm runs; resolves with its outcome counts. */
async function stormedStop(stop: (server: Server) => Promise<void> | void): Promise<Record<string, number>> {
  const server = createServer((socket) => {
    socket.on('error', () => {})
    socket.on('data', () => socket.end('y'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as { port: number }
  const child = spawn(process.execPath, ['-e', STORM, String(port), '20'], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  let out = ''
  const counts = new Promise<Record<string, number>>((resolve) => child.stdout.on('data', (chunk) => {
    out += chunk
    const lines = out.split('\n')
    if (lines.length > 2) resolve(JSON.parse(lines[1]!))
  }))
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
  await stop(server)
  return counts
}

const resets = (counts: Record<string, number>) => Object.entries(counts).filter(([outcome]) => outcome !== 'answered' && outcome !== 'ECONNREFUSED')

describe('stopListening under a storm of connection attempts', () => {
  it('12 stops: every attempt answered or refused, 0 resets', { timeout: 120_000 }, async () => {
    for (let round = 0; round < 12; round++) {
      const counts = await stormedStop((server) => stopListening(server))
      expect(resets(counts)).toEqual([])
      expect(counts).toMatchObject({ answered: expect.any(Number), ECONNREFUSED: 20 })
    }
  })

  it('the plain close resets connections under the same storm', { timeout: 60_000 }, async () => {
    let reset = 0
    for (let round = 0; round < 5; round++) {
      const counts = await stormedStop((server) => void Server.prototype.close.call(server))
      reset += resets(counts).reduce((n, [, count]) => n + count, 0)
    }
    expect(reset).toBeGreaterThan(0)
  })
})
