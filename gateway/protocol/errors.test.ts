import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from './errors.ts'

describe('error codes', () => {
  it('documents every code with its status in docs/errors.md, and nothing else', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])])
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES)
  })
})
