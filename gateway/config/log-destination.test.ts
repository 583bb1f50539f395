/** The log's stdout destination: batches, the interval, flushes, a full pipe, a closed one. */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { LogDestination } from './log-destination.ts'

const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(100) })}\n`

function fileDestination(options: Partial<LogDestination['options']> = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'log-dest-')), 'out.log')
  const fd = openSync(path, 'w')
  const destination = new LogDestination(fd, { batchBytes: 1024, flushIntervalMs: 60_000, maxBufferedBytes: 1 << 20, ...options })
  const read = () => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).n as number)
  return { destination, read, close: () => closeSync(fd) }
}

const flushed = (d: LogDestination) => new Promise<void>((resolve) => d.flush(resolve))

describe('LogDestination', () => {
  it('writes nothing until a batch has gathered, then the batch, in order', async () => {
    const { destination, read, close } = fileDestination()
    destination.write(line(0))
    await new Promise((r) => setImmediate(r))
    expect(read()).toEqual([])
    for (let n = 1; n < 20; n++) destination.write(line(n))
    // A batch (at least 1024 bytes: 10 lines or more) went out with no flush asked, its lines in order.
    await expect.poll(() => read().length).toBeGreaterThanOrEqual(10)
    expect(read()).toEqual(Array.from({ length: read().length }, (_, i) => i))
    await flushed(destination)
    expect(read()).toEqual(Array.from({ length: 20 }, (_, i) => i))
    close()
  })

  it('writes a line that waits on the interval when traffic is too light to fill a batch', async () => {
    const { destination, read, close } = fileDestination({ flushIntervalMs: 20 })
    destination.write(line(7))
    await expect.poll(read).toEqual([7])
    close()
  })

  it('flush waits for every line given, across several batches and a write in flight', async () => {
    const { destination, read, close } = fileDestination({ batchBytes: 300 })
    for (let n = 0; n < 500; n++) destination.write(line(n))
    await flushed(destination)
    expect(read()).toEqual(Array.from({ length: 500 }, (_, i) => i))
    close()
  })

  it('drops lines beyond the cap instead of holding them, and counts them', async () => {
    const { destination, read, close } = fileDestination({ batchBytes: 1 << 20, maxBufferedBytes: 10 * line(0).length })
    for (let n = 0; n < 15; n++) destination.write(line(n))
    expect(destination.dropped).toBe(5)
    await flushed(destination)
    expect(read()).toEqual(Array.from({ length: 10 }, (_, i) => i))
    close()
  })

  it('tells how many lines it dropped, once per period while dropping, not once a line', async () => {
    const reported: number[] = []
    const { destination, close } = fileDestination({ batchBytes: 1 << 20, flushIntervalMs: 10, maxBufferedBytes: 10 * line(0).length, onDropped: (n) => reported.push(n) })
    for (let n = 0; n < 15; n++) destination.write(line(n))
    await expect.poll(() => reported).toEqual([5])
    // Once the first ten went out (the interval's write), the next burst drops its own overflow.
    await flushed(destination)
    for (let n = 0; n < 13; n++) destination.write(line(n))
    await expect.poll(() => reported).toEqual([5, 3])
    close()
  })

  it('after its fd fails (closed), drops what it holds and still answers flush', async () => {
    const { destination, close } = fileDestination()
    close()
    for (let n = 0; n < 20; n++) destination.write(line(n))
    await flushed(destination)
    expect(destination.dropped).toBeGreaterThan(0)
    expect(destination.write(line(99))).toBe(false)
  })

  it('loses nothing through a full non-blocking pipe whose reader starts late, and writes the rest on exit', async () => {
    // A child writes 400 KiB to its stdout (a pipe, non-blocking once process.stdout exists) while
    // this process does not read; it says so on stderr, then this process reads everything.
    const script = `
      const { LogDestination } = await import(${JSON.stringify(fileURLToPath(new URL('./log-destination.ts', import.meta.url)))})
      void process.stdout
      const d = new LogDestination(1, { batchBytes: 32768, flushIntervalMs: 100, maxBufferedBytes: 1 << 24 })
      for (let n = 0; n < 3000; n++) d.write(JSON.stringify({ n, pad: 'x'.repeat(120) }) + '\\n')
      process.stderr.write('written\\n')
      await new Promise((resolve) => d.flush(resolve))
      for (let n = 3000; n < 3005; n++) d.write(JSON.stringify({ n }) + '\\n')
      process.exit(0)`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.pause()
    await new Promise<void>((resolve) => child.stderr.on('data', (c: Buffer) => c.toString().includes('written') && resolve()))
    let out = ''
    child.stdout.on('data', (c: Buffer) => { out += c.toString() })
    child.stdout.resume()
    const code = await new Promise((resolve) => child.once('close', resolve))
    expect(code).toBe(0)
    expect(out.split('\n').filter(Boolean).map((l) => JSON.parse(l).n)).toEqual(Array.from({ length: 3005 }, (_, i) => i))
  }, 30_000)

  it('retries a write that found its fd full (EAGAIN), and the rest of a short write, losing nothing', async () => {
    // The calls of a non-blocking stdout whose reader is slow: a write fails with EAGAIN twice,
    // then takes at most 100 bytes at a time.
    const written: Buffer[] = []
    let refusals = 2
    const eagain = Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' })
    const io = {
      write(_fd: number, buffer: Buffer, done: (e: NodeJS.ErrnoException | null, n: number) => void) {
        setImmediate(() => {
          if (refusals-- > 0) return done(eagain, 0)
          const n = Math.min(100, buffer.length)
          written.push(Buffer.from(buffer.subarray(0, n)))
          done(null, n)
        })
      },
      writeSync: () => { throw eagain },
    }
    const destination = new LogDestination(99, { batchBytes: 1024, flushIntervalMs: 60_000, maxBufferedBytes: 1 << 20, io })
    for (let n = 0; n < 50; n++) destination.write(line(n))
    await flushed(destination)
    const numbers = Buffer.concat(written).toString().split('\n').filter(Boolean).map((l) => JSON.parse(l).n as number)
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i))
    expect(refusals).toBeLessThan(0)
  })
})
