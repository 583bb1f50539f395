import { describe, expect, it } from 'vitest'
import { ScratchFs, ScratchLimitError, ScratchPathError } from './scratch-fs.ts'

describe('ScratchFs.canonical', () => {
  it.each([
    ['a/b/../c', '/a/c'],
    ['/a/b/../c', '/a/c'],
    ['./x', '/x'],
    ['a//b/', '/a/b'],
    ['/a/./b/.', '/a/b'],
    ['a/..', '/'],
    ['/', '/'],
    ['dir/file.txt', '/dir/file.txt'],
    ['a\\b', '/a\\b'],
  ])('%j → %j', (input, expected) => {
    expect(ScratchFs.canonical(input)).toBe(expected)
  })

  it.each([
    ['/../x', /above the scratch root/],
    ['..', /above the scratch root/],
    ['a/../../b', /above the scratch root/],
    ['a\0b', /NUL/],
    ['', /empty/],
    ['a'.repeat(1025), /longer than 1024/],
  ])('rejects %j', (input, message) => {
    expect(() => ScratchFs.canonical(input)).toThrow(ScratchPathError)
    expect(() => ScratchFs.canonical(input)).toThrow(message)
  })

  it('accepts a 1023-character relative path', () => {
    expect(ScratchFs.canonical('a'.repeat(1023))).toHaveLength(1024)
  })
})

describe('ScratchFs', () => {
  it('reads and writes text and bytes through canonical paths', () => {
    const fs = new ScratchFs()
    fs.write('notes/a.txt', 'héllo')
    expect(fs.readText('/notes/./a.txt')).toBe('héllo')
    expect(fs.read('notes/a.txt')).toEqual(new TextEncoder().encode('héllo'))
    expect(fs.has('/notes/a.txt')).toBe(true)
    expect(fs.read('/missing')).toBeUndefined()
    expect(fs.readText('/missing')).toBeUndefined()
    expect(() => fs.write('/', 'x')).toThrow(ScratchPathError)
    expect(() => fs.write('../escape', 'x')).toThrow(ScratchPathError)
  })

  it('stores copies: neither the written nor the read array aliases the file', () => {
    const fs = new ScratchFs()
    const data = new Uint8Array([1, 2, 3])
    fs.write('/f', data)
    data[0] = 99
    const read = fs.read('/f')!
    read[1] = 99
    expect(fs.read('/f')).toEqual(new Uint8Array([1, 2, 3]))
  })

  it('lists sorted by path, tracks totals and deletes', () => {
    const fs = new ScratchFs()
    fs.write('/b', 'bb')
    fs.write('/a/z', 'z')
    fs.write('/a/y', 'yyy')
    expect(fs.list()).toEqual([
      { path: '/a/y', size: 3 },
      { path: '/a/z', size: 1 },
      { path: '/b', size: 2 },
    ])
    expect(fs.totalBytes).toBe(6)
    fs.write('/b', 'b')
    expect(fs.totalBytes).toBe(5)
    expect(fs.delete('a/y')).toBe(true)
    expect(fs.delete('a/y')).toBe(false)
    expect(fs.totalBytes).toBe(2)
    expect(fs.list().map((f) => f.path)).toEqual(['/a/z', '/b'])
  })

  it('keeps a path from being both a file and a directory', () => {
    const fs = new ScratchFs()
    fs.write('/a/b', 'x')
    expect(() => fs.write('/a', 'x')).toThrow(/is a directory/)
    expect(() => fs.write('/a/b/c', 'x')).toThrow(/is a file/)
    fs.delete('/a/b')
    fs.write('/a', 'now a file')
    expect(fs.readText('/a')).toBe('now a file')
  })

  it('enforces the per-file and total limits without changing state', () => {
    const fs = new ScratchFs({ maxFileBytes: 4, maxTotalBytes: 6 })
    expect(() => fs.write('/big', '12345')).toThrow(ScratchLimitError)
    fs.write('/a', '1234')
    expect(() => fs.write('/b', '123')).toThrow(ScratchLimitError)
    expect(fs.has('/b')).toBe(false)
    fs.write('/a', '1')
    fs.write('/b', '12345'.slice(0, 4))
    expect(fs.totalBytes).toBe(5)
    expect(() => new ScratchFs({ maxFileBytes: -1 })).toThrow(RangeError)
  })

  it('defaults to 10 MiB per file and 64 MiB in total', () => {
    const fs = new ScratchFs()
    expect(fs.maxFileBytes).toBe(10 * 1024 * 1024)
    expect(fs.maxTotalBytes).toBe(64 * 1024 * 1024)
    expect(() => fs.write('/f', new Uint8Array(10 * 1024 * 1024 + 1))).toThrow(ScratchLimitError)
  })

  it('round-trips binary bytes through toJSON/fromJSON', () => {
    const fs = new ScratchFs()
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i)
    fs.write('/bin/all-bytes', bytes)
    fs.write('/text', 'ok')
    const snapshot = JSON.parse(JSON.stringify(fs)) as Record<string, string>
    expect(snapshot).toEqual({ '/bin/all-bytes': Buffer.from(bytes).toString('base64'), '/text': 'b2s=' })
    const restored = ScratchFs.fromJSON(snapshot)
    expect(restored.read('/bin/all-bytes')).toEqual(bytes)
    expect(restored.list()).toEqual(fs.list())
  })

  it('fromJSON rejects malformed snapshots and applies limits and path rules', () => {
    expect(() => ScratchFs.fromJSON({ '/a': 'not base64!' })).toThrow(TypeError)
    expect(() => ScratchFs.fromJSON({ '/../a': 'b2s=' })).toThrow(ScratchPathError)
    expect(() => ScratchFs.fromJSON({ '/a': 'b2s=' }, { maxFileBytes: 1 })).toThrow(ScratchLimitError)
  })
})
