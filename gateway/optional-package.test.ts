/** A missing optional package is one startup line naming what to install; any other import failure passes through. */
import { describe, expect, it } from 'vitest'
import { importOptional, MissingPackageError } from './optional-package.ts'

describe('importOptional', () => {
  it('turns a package that is not installed into a MissingPackageError naming it and the install command', async () => {
    const name = 'h25-no-such-package'
    const err = await importOptional(name, 'cli_primary profiles', () => import(name)).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(MissingPackageError)
    expect(err).toMatchObject({ name: 'MissingPackageError', packageName: name, message: `cli_primary profiles needs the package ${name}: npm install ${name}` })
    expect(String(err)).toBe(`MissingPackageError: cli_primary profiles needs the package ${name}: npm install ${name}`)
  })

  it('rethrows any other failure as it was', async () => {
    const boom = new Error('the module threw while loading')
    await expect(importOptional('zod', 'anything', () => Promise.reject(boom))).rejects.toBe(boom)
  })
})
