import { describe, expect, it } from 'vitest'
import { isToolExecutionOutput, typedOutput } from './tool-output.ts'

describe('tool execution outputs (protocol 7 typed values)', () => {
  it('recognises {type: text, value: string} and {type: json, value}, and nothing else', () => {
    expect(isToolExecutionOutput({ type: 'json', value: 42 })).toBe(true)
    expect(isToolExecutionOutput({ type: 'json', value: null })).toBe(true)
    expect(isToolExecutionOutput({ type: 'text', value: 'hi' })).toBe(true)
    expect(isToolExecutionOutput({ type: 'text', value: 42 })).toBe(false)
    expect(isToolExecutionOutput({ type: 'json' })).toBe(false)
    expect(isToolExecutionOutput({ type: 'image', value: 'x' })).toBe(false)
    expect(isToolExecutionOutput([{ type: 'json', value: 1 }])).toBe(false)
    expect(isToolExecutionOutput(42)).toBe(false)
  })

  it('types a bare value: a string as text, anything else as json', () => {
    expect(typedOutput('hi')).toEqual({ type: 'text', value: 'hi' })
    expect(typedOutput({ a: 1 })).toEqual({ type: 'json', value: { a: 1 } })
    expect(typedOutput(undefined)).toEqual({ type: 'json', value: null })
  })
})
