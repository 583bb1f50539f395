import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { pathOf, splitPath } from './request-path.ts'

const chars = fc.constantFrom(...'/aZ09-._~%2Fé :@!$&\'()*+,;=?#\\"<>{}|^`'.split(''))

describe('request paths', () => {
  it('the fast path agrees with the WHATWG parser on every origin-form target', () => {
    fc.assert(fc.property(fc.array(chars, { maxLength: 30 }).map((a) => `/${a.join('')}`), (target) => {
      let expected: string
      try { expected = new URL(target, 'http://gateway.invalid').pathname } catch { expected = target.split('?')[0] }
      expect(pathOf(target)).toBe(expected)
    }), { numRuns: 2000 })
  })

  it('decodes segments, drops one trailing slash, and refuses empty or undecodable segments', () => {
    expect(splitPath('/sessions/a%20b/')).toEqual(['sessions', 'a b'])
    expect(splitPath('/sessions//ws')).toBeUndefined()
    expect(splitPath('/sessions/%E0%A4%A')).toBeUndefined()
    expect(splitPath(pathOf('//'))).toBeUndefined()
  })
})
