import { describe, expect, it } from 'vitest'
import { isInside } from './containment.ts'

describe('isInside: containment at the root\'s own boundary', () => {
  it('counts the root itself and its descendants as inside', () => {
    expect(isInside('/srv/root', '/srv/root')).toBe(true)
    expect(isInside('/srv/root/a/b', '/srv/root')).toBe(true)
    expect(isInside('/srv/root/a/../b', '/srv/root')).toBe(true)
  })

  it('keeps a child whose name starts with two dots inside', () => {
    expect(isInside('/srv/root/..hidden', '/srv/root')).toBe(true)
    expect(isInside('/srv/root/...', '/srv/root')).toBe(true)
  })

  it('refuses the parent, a sibling sharing the name as a prefix, and any climb out', () => {
    expect(isInside('/srv', '/srv/root')).toBe(false)
    expect(isInside('/srv/root-x', '/srv/root')).toBe(false)
    expect(isInside('/srv/rootx/inner', '/srv/root')).toBe(false)
    expect(isInside('/srv/root/../other', '/srv/root')).toBe(false)
    expect(isInside('/etc/passwd', '/srv/root')).toBe(false)
  })
})
