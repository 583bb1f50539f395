import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFileSessionStore } from './file-store.ts'
import { createMemorySessionStore } from './memory-store.ts'
import { describeSessionStoreContract, storedSessionFixture } from './store-contract.ts'

const tempRoot = () => mkdtemp(join(tmpdir(), 'session-store-'))

describeSessionStoreContract('memory', async () => ({ store: createMemorySessionStore() }))

describeSessionStoreContract('file', async () => {
  const root = await tempRoot()
  return {
    store: createFileSessionStore({ dir: join(root, 'sessions') }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
})

describe('file session store', () => {
  let root: string
  let dir: string
  beforeEach(async () => {
    root = await tempRoot()
    dir = join(root, 'nested', 'sessions')
  })
  afterEach(() => rm(root, { recursive: true, force: true }))

  it('creates the dir 0700 and files 0600', async () => {
    await createFileSessionStore({ dir }).save(storedSessionFixture('s1'))
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, 's1.json'))).mode & 0o777).toBe(0o600)
  })

  it('is readable by a second instance on the same dir', async () => {
    await createFileSessionStore({ dir }).save(storedSessionFixture('s1'))
    const restarted = createFileSessionStore({ dir })
    expect(await restarted.load('s1')).toEqual(storedSessionFixture('s1'))
    expect(await restarted.list()).toEqual([storedSessionFixture('s1')])
  })

  it('skips malformed, foreign and temp files in list and load', async () => {
    const store = createFileSessionStore({ dir })
    await store.save(storedSessionFixture('good'))
    await writeFile(join(dir, 'broken.json'), '{"id": "broken", ')
    await writeFile(join(dir, 'partial.json'), JSON.stringify({ id: 'partial', kind: 'park' }))
    await writeFile(join(dir, 'good.json.123.abc.tmp'), JSON.stringify(storedSessionFixture('good', 9)))
    expect(await store.list()).toEqual([storedSessionFixture('good')])
    expect(await store.load('broken')).toBeUndefined()
    expect(await store.load('partial')).toBeUndefined()
  })

  it('keeps ids with path segments inside the dir', async () => {
    const store = createFileSessionStore({ dir })
    await store.save(storedSessionFixture('../evil'))
    await store.save(storedSessionFixture('../../evil2'))
    expect((await readdir(join(root, 'nested'))).sort()).toEqual(['sessions'])
    expect(await readdir(root)).toEqual(['nested'])
    expect(await store.load('../evil')).toEqual(storedSessionFixture('../evil'))
  })

  it('leaves no temp files behind', async () => {
    const store = createFileSessionStore({ dir })
    await Promise.all([1, 2, 3].map((n) => store.save(storedSessionFixture('s1', n))))
    await store.save(storedSessionFixture('s2'))
    expect((await readdir(dir)).sort()).toEqual(['s1.json', 's2.json'])
    expect(await store.load('s1')).toMatchObject({ savedAt: 3 })
  })

  it('rejects a failed operation without blocking the next one on that id', async () => {
    const store = createFileSessionStore({ dir })
    const cyclic = storedSessionFixture('s1') as unknown as Record<string, unknown>
    cyclic.self = cyclic
    const failed = store.save(cyclic as never)
    const next = store.save(storedSessionFixture('s1'))
    await expect(failed).rejects.toThrow()
    await next
    expect(await store.load('s1')).toEqual(storedSessionFixture('s1'))
  })
})
