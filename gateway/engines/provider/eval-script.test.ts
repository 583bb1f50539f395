import { describe, expect, it } from 'vitest'
import { evalScript, type EvalResult } from './eval-script.ts'
import { ScratchFs } from './scratch-fs.ts'

function expectOk(result: EvalResult): unknown {
  if (!result.ok) throw new Error(`expected ok, got ${result.error}`)
  return result.value
}

function expectError(result: EvalResult): string {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`)
  return result.error
}

describe('evalScript', () => {
  it('returns the completion value', async () => {
    expect(expectOk(await evalScript({ code: '1 + 2 * 3' }))).toBe(7)
    expect(expectOk(await evalScript({ code: '({ a: [1, "x", null] })' }))).toEqual({ a: [1, 'x', null] })
    expect(expectOk(await evalScript({ code: 'let x = 1' }))).toBeUndefined()
  })

  it('returns a non-JSON value in its string form', async () => {
    expect(expectOk(await evalScript({ code: '10n' }))).toBe('10')
    expect(expectOk(await evalScript({ code: 'const o = {}; o.self = o; o' }))).toBe('[object Object]')
    expect(expectOk(await evalScript({ code: 'Symbol("s")' }))).toBe('Symbol(s)')
  })

  it('copies input in; guest mutation does not reach the host object', async () => {
    const input = { items: [1, 2, 3], nested: { flag: true } }
    const result = await evalScript({ code: 'input.items.push(4); input.nested.flag = false; input', input })
    expect(expectOk(result)).toEqual({ items: [1, 2, 3, 4], nested: { flag: false } })
    expect(input).toEqual({ items: [1, 2, 3], nested: { flag: true } })
    expect(expectOk(await evalScript({ code: 'typeof input' }))).toBe('undefined')
  })

  it('captures console.log lines', async () => {
    const result = await evalScript({ code: 'console.log("a", 1, {b: 2}, [3], undefined, null); console.log("second"); 0' })
    expect(result.logs).toEqual(['a 1 {"b":2} [3] undefined null', 'second'])
  })

  it('caps console output at 100 lines', async () => {
    const result = await evalScript({ code: 'for (let i = 0; i < 500; i++) console.log("line " + i); "done"' })
    expect(expectOk(result)).toBe('done')
    expect(result.logs).toHaveLength(100)
    expect(result.logs[0]).toBe('line 0')
    expect(result.logs[99]).toMatch(/truncated/)
  })

  it('caps console output at 64 KiB', async () => {
    const result = await evalScript({ code: 'for (let i = 0; i < 10; i++) console.log("x".repeat(10000)); 1' })
    expect(result.logs.join('').length).toBeLessThanOrEqual(64 * 1024)
    expect(result.logs.at(-1)).toMatch(/truncated/)
  })

  it('reads and writes the scratch fs, visible to the host', async () => {
    const fs = new ScratchFs()
    fs.write('/in.txt', 'from host')
    const code = `
      const text = fs.read('in.txt');
      fs.write('out/result.txt', text.toUpperCase());
      fs.write('/tmp/gone', 'x');
      const deleted = fs.delete('/tmp/gone');
      ({ text, deleted, missing: fs.read('/nope') === undefined, list: fs.list() })
    `
    expect(expectOk(await evalScript({ code, fs }))).toEqual({
      text: 'from host',
      deleted: true,
      missing: true,
      list: [
        { path: '/in.txt', size: 9 },
        { path: '/out/result.txt', size: 9 },
      ],
    })
    expect(fs.readText('/out/result.txt')).toBe('FROM HOST')
    expect(fs.has('/tmp/gone')).toBe(false)
  })

  it('surfaces scratch fs errors as guest exceptions', async () => {
    const fs = new ScratchFs({ maxFileBytes: 4 })
    expect(expectError(await evalScript({ code: 'fs.write("../etc/passwd", "x")', fs }))).toMatch(/^ScratchPathError: .*above the scratch root/)
    expect(expectError(await evalScript({ code: 'fs.write("/big", "12345")', fs }))).toMatch(/^ScratchLimitError: /)
    expect(expectError(await evalScript({ code: 'fs.write("/a", 42)', fs }))).toMatch(/^TypeError: /)
    expect(expectOk(await evalScript({ code: 'try { fs.read("/../x") } catch (e) { e.name }', fs }))).toBe('ScratchPathError')
    expect(expectOk(await evalScript({ code: 'typeof fs' }))).toBe('undefined')
  })

  it('ends an infinite loop with a time-limit error', { timeout: 15_000 }, async () => {
    const started = Date.now()
    expect(expectError(await evalScript({ code: 'while (true) {}', timeoutMs: 300 }))).toMatch(/time limit/)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(expectError(await evalScript({ code: 'while (true) { try { for (;;) {} } catch (e) {} }', timeoutMs: 300 }))).toMatch(/time limit/)
  })

  it('ends a memory bomb with a memory error', { timeout: 15_000 }, async () => {
    const bomb = 'const a = []; for (let i = 0; ; i++) a.push("x".repeat(1000) + i)'
    expect(expectError(await evalScript({ code: bomb, memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 }))).toMatch(/memory/i)
    // Native-heavy loops rarely reach the interrupt poll; the host's memory must still stay bounded.
    const rssBefore = process.memoryUsage().rss
    const typed = 'const a = []; for (;;) a.push(new Uint8Array(4 << 20))'
    expect(expectError(await evalScript({ code: typed, memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 }))).toMatch(/memory/i)
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024)
    const map = 'const m = new Map(); for (let i = 0; ; i++) m.set(i, i)'
    expect(expectError(await evalScript({ code: map, memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 }))).toMatch(/memory/i)
    expect(expectError(await evalScript({ code: '"x".repeat(64 * 1024 * 1024)', memoryLimitBytes: 16 * 1024 * 1024 }))).toMatch(/memory/i)
    const stubborn = 'const a = []; for (;;) { try { a.push(new Uint8Array(1 << 20)) } catch {} }'
    expect(expectError(await evalScript({ code: stubborn, memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 }))).toMatch(/memory/i)
  })

  it('enforces the memory limit when the heap already has free space', { timeout: 15_000 }, async () => {
    const grow = 'const a = []; for (let i = 0; i < 100; i++) a.push(new Uint8Array(1 << 20)); a.length'
    expect(expectOk(await evalScript({ code: grow, memoryLimitBytes: 200 * 1024 * 1024 }))).toBe(100)
    // Logs each ~1 MB retained, so the stopping point is visible.
    const bomb = 'const a = []; for (let i = 0; ; i++) { a.push("y".repeat(1000) + i); if (i % 1000 === 0) console.log(i / 1000) }'
    const result = await evalScript({ code: bomb, memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 10_000 })
    expect(expectError(result)).toMatch(/memory limit/)
    expect(Number(result.logs.at(-1))).toBeLessThan(40)
  })

  it('exposes no host capabilities', async () => {
    const code = '[typeof fetch, typeof require, typeof process, typeof setTimeout, typeof module, typeof Buffer, typeof WebAssembly]'
    expect(expectOk(await evalScript({ code }))).toEqual(Array(7).fill('undefined'))
    const dynamicImport = await evalScript({ code: 'import("node:fs")' })
    expect(dynamicImport.ok).toBe(false)
  })

  it('reports a thrown error as name: message', async () => {
    const thrown = await evalScript({ code: 'console.log("before"); throw new Error("boom")' })
    expect(expectError(thrown)).toBe('Error: boom')
    expect(thrown.logs).toEqual(['before'])
    expect(expectError(await evalScript({ code: 'null.x' }))).toMatch(/^TypeError: /)
    expect(expectError(await evalScript({ code: 'class E extends Error { name = "Custom" }; throw new E("why")' }))).toBe('Custom: why')
    expect(expectError(await evalScript({ code: 'throw 5' }))).toBe('Uncaught 5')
    expect(expectError(await evalScript({ code: 'let = =' }))).toMatch(/^SyntaxError: /)
  })

  it('awaits a returned promise', async () => {
    expect(expectOk(await evalScript({ code: '(async () => 42)()' }))).toBe(42)
    expect(expectOk(await evalScript({ code: 'Promise.resolve(1).then((x) => x + 1).then((x) => ({ x }))' }))).toEqual({ x: 2 })
    expect(expectError(await evalScript({ code: '(async () => { throw new RangeError("late") })()' }))).toBe('RangeError: late')
  })

  it('ends a promise that never settles with an error', async () => {
    expect(expectError(await evalScript({ code: 'new Promise(() => {})' }))).toMatch(/never settled/)
  })

  it('ends an endless promise chain with a time-limit error', { timeout: 15_000 }, async () => {
    expect(expectError(await evalScript({ code: '(async () => { for (;;) await null })()', timeoutMs: 300 }))).toMatch(/time limit/)
  })

  it('reports stack overflow and survives host-stack exhaustion', { timeout: 15_000 }, async () => {
    expect(expectError(await evalScript({ code: 'function f() { return f() + 1 } f()' }))).toMatch(/stack overflow/)
    const nested = `eval("(".repeat(5000) + "1" + ")".repeat(5000))`
    expect(expectError(await evalScript({ code: nested, maxStackBytes: 1024 * 1024 }))).toMatch(/sandbox fault/)
    expect(expectOk(await evalScript({ code: '6 * 7' }))).toBe(42)
  })

  it('rejects invalid options by throwing', async () => {
    await expect(evalScript({ code: 1 as unknown as string })).rejects.toThrow(TypeError)
    await expect(evalScript({ code: '1', timeoutMs: 0 })).rejects.toThrow(RangeError)
    await expect(evalScript({ code: '1', maxStackBytes: 8 * 1024 * 1024 })).rejects.toThrow(RangeError)
    await expect(evalScript({ code: '1', input: { n: 1n } })).rejects.toThrow(TypeError)
  })

  it('runs 200 sequential calls without leaking', { timeout: 60_000 }, async () => {
    const fs = new ScratchFs()
    for (let i = 0; i < 200; i++) {
      const result = await evalScript({ code: 'console.log(input.i); fs.write("/n", String(input.i)); globalThis.junk = new Array(1000).fill(input.i); input.i * 2', input: { i }, fs })
      expect(expectOk(result)).toBe(i * 2)
    }
    expect(fs.readText('/n')).toBe('199')
  })
})
