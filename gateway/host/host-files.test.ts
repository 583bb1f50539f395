import { mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { FileRefusal, HostFiles } from './host-files.ts'

let root: string
let outside: string
let files: HostFiles

beforeEach(async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'gw-hostfiles-')))
  root = join(base, 'root')
  outside = join(base, 'outside')
  await mkdir(join(root, 'src', 'deep'), { recursive: true })
  await mkdir(join(root, 'node_modules', 'pkg'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(outside, 'secret.txt'), 'do not read')
  await writeFile(join(root, 'README.md'), '# hi')
  await writeFile(join(root, 'src', 'main.ts'), 'export {}')
  await writeFile(join(root, 'src', 'deep', 'main-helper.ts'), 'x')
  await writeFile(join(root, 'node_modules', 'pkg', 'main.js'), 'x')
  await writeFile(join(root, 'blob.bin'), Buffer.from([0xff, 0x00, 0xfe]))
  await symlink(join(outside, 'secret.txt'), join(root, 'escape.txt'))
  await symlink(outside, join(root, 'escape-dir'))
  await symlink(join(root, 'gone'), join(root, 'dangling'))
  files = new HostFiles([root], { write: true, maxFileBytes: 100 })
})

const status = (r: unknown) => (r instanceof FileRefusal ? r.status : 200)

describe('host files (engine-facts §7)', () => {
  it('answers every refusal that consulted the filesystem with the same 404, and malformed paths with 403', async () => {
    for (const path of [join(outside, 'secret.txt'), join(root, 'escape.txt'), join(root, 'escape-dir', 'secret.txt'), join(root, 'dangling'), join(root, 'nope'), join(root, '..', 'outside', 'secret.txt')]) {
      expect(await files.read(path), path).toEqual(new FileRefusal(404, 'not found'))
    }
    expect(status(await files.read('relative/README.md'))).toBe(403)
    expect(status(await files.read(`${root}/README.md\0`))).toBe(403)
    expect(status(await files.read(undefined))).toBe(400)
  })

  it('lists one level with symlinks as symlinks, directories first', async () => {
    const list = await files.list(root)
    if (list instanceof FileRefusal) throw new Error(list.message)
    expect(list.entries.map((e) => `${e.type}:${e.name}`)).toEqual([
      'dir:node_modules', 'dir:src', 'file:blob.bin', 'symlink:dangling', 'symlink:escape-dir', 'symlink:escape.txt', 'file:README.md',
    ])
    expect(status(await files.list(join(root, 'README.md')))).toBe(400)
  })

  it('finds by subsequence, file names above paths, shallowest first, skipping ignored directories and symlinks', async () => {
    const found = await files.find(root, 'main', 10)
    if (found instanceof FileRefusal) throw new Error(found.message)
    expect(found.matches.map((m) => m.path)).toEqual([join(root, 'src', 'main.ts'), join(root, 'src', 'deep', 'main-helper.ts')])
    const byPath = await files.find(root, 'srcdeep', 10)
    expect(byPath instanceof FileRefusal ? [] : byPath.matches.map((m) => m.name)).toEqual(['main-helper.ts'])
    const shallow = await files.find(root, '', 2)
    expect(shallow instanceof FileRefusal ? undefined : shallow.truncated).toBe(true)
  })

  it('reads utf8 or base64 with a sha256, and refuses files over the cap with 413', async () => {
    const text = await files.read(join(root, 'README.md'))
    expect(text).toMatchObject({ content: '# hi', encoding: 'utf8', bytes: 4 })
    expect(await files.read(join(root, 'blob.bin'))).toMatchObject({ content: Buffer.from([0xff, 0x00, 0xfe]).toString('base64'), encoding: 'base64' })
    await writeFile(join(root, 'big.txt'), 'x'.repeat(101))
    expect(status(await files.read(join(root, 'big.txt')))).toBe(413)
    expect(status(await files.read(join(root, 'src')))).toBe(400)
  })

  it('writes only conditionally, never through a symlink, never creating directories, and only when enabled', async () => {
    const path = join(root, 'new.txt')
    const created = await files.write({ path, content: 'v1' })
    if (created instanceof FileRefusal) throw new Error(created.message)
    expect(status(await files.write({ path, content: 'blind' }))).toBe(409)
    expect(status(await files.write({ path, content: 'v2', expectedHash: 'f'.repeat(64) }))).toBe(409)
    expect(status(await files.write({ path, content: 'v2', expectedHash: created.hash }))).toBe(200)
    expect(await readFile(path, 'utf8')).toBe('v2')
    expect(status(await files.write({ path: join(root, 'fresh.txt'), content: 'x', expectedHash: created.hash }))).toBe(409)
    expect(status(await files.write({ path: join(root, 'escape.txt'), content: 'pwned' }))).toBe(404)
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('do not read')
    expect(status(await files.write({ path: join(root, 'escape-dir', 'x.txt'), content: 'x' }))).toBe(404)
    expect(status(await files.write({ path: join(root, 'missing', 'x.txt'), content: 'x' }))).toBe(404)
    expect(status(await files.write({ path: join(root, 'big.txt'), content: 'x'.repeat(101) }))).toBe(413)
    expect(status(await files.write({ path, content: 'x', encoding: 'hex' }))).toBe(400)
    expect(status(await new HostFiles([root]).write({ path: join(root, 'y.txt'), content: 'y' }))).toBe(403)
  })
})
