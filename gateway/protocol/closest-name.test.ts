/** The did-you-mean rule behind configuration errors and the kit's manifest check. */
import { describe, expect, it } from 'vitest'
import { closest } from './closest-name.ts'

describe('closest', () => {
  it('finds the nearest name within the edit distance, a case-only difference first, and nothing farther', () => {
    expect(closest('lisen', ['listen', 'profiles', 'queue'])).toBe('listen')
    expect(closest('maxConcurency', ['maxConcurrency', 'maxQueued'])).toBe('maxConcurrency')
    expect(closest('QUEUE', ['queues', 'queue'])).toBe('queue')
    expect(closest('porfiles', ['profiles', 'ports'])).toBe('profiles')
    expect(closest('xyz', ['listen', 'profiles'])).toBeUndefined()
    expect(closest('abcdef', ['ab'])).toBeUndefined()
    expect(closest('cors', ['auth', 'host'])).toBeUndefined()
  })
})
