import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findProject } from './project.ts'

describe('project info from .gateway.json (session.3)', () => {
  it('walks up from the realpath of cwd to the nearest config; names default to the directory', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'gw-proj-')))
    await mkdir(join(root, 'outer', 'inner', 'deep'), { recursive: true })
    await writeFile(join(root, 'outer', '.gateway.json'), JSON.stringify({ name: 'Outer', icon: 'rocket' }))
    await writeFile(join(root, 'outer', 'inner', '.gateway.json'), 'not json')
    expect((await findProject(join(root, 'outer', 'inner', 'deep')))?.info).toEqual({ name: 'inner', root: join(root, 'outer', 'inner') })
    expect((await findProject(join(root, 'outer')))?.info).toEqual({ name: 'Outer', root: join(root, 'outer'), icon: 'rocket' })
    await symlink(join(root, 'outer'), join(root, 'alias'))
    expect((await findProject(join(root, 'alias')))?.info.root).toBe(join(root, 'outer'))
    expect(await findProject(join(root, 'missing'))).toBeUndefined()
  })

  it('addresses an icon file by its content hash, and never serves one outside the project root', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'gw-proj-')))
    await mkdir(join(root, 'p'))
    await writeFile(join(root, 'secret.png'), 'not yours')
    await writeFile(join(root, 'p', 'icon.png'), 'png bytes')
    await writeFile(join(root, 'p', '.gateway.json'), JSON.stringify({ icon: 'icon.png' }))
    const found = await findProject(join(root, 'p'))
    expect(found?.info.icon).toEqual({ mediaType: 'image/png', hash: createHash('sha256').update('png bytes').digest('hex') })
    expect(found?.icon?.bytes.toString()).toBe('png bytes')
    await writeFile(join(root, 'p', '.gateway.json'), JSON.stringify({ icon: '../secret.png' }))
    expect((await findProject(join(root, 'p')))?.icon).toBeUndefined()
    await symlink(join(root, 'secret.png'), join(root, 'p', 'link.png'))
    await writeFile(join(root, 'p', '.gateway.json'), JSON.stringify({ icon: 'link.png' }))
    expect((await findProject(join(root, 'p')))?.icon).toBeUndefined()
  })
})
