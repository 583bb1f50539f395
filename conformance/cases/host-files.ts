/** Cases for the host file routes (engine-session-stores-and-host-files.2-6, server-configuration.8). */
import { createHash } from 'node:crypto'
import { Unsupported, type Case } from '../types.ts'

export const hostFileCases: Case[] = [
  {
    id: 'host-files-roots-list-find-read', title: '/fs/roots, list, find and read inside the roots; outside is a uniform 404, a relative path 403, scoped principals 404', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.2', 'engine-session-stores-and-host-files.3', 'engine-session-stores-and-host-files.4', 'engine-session-stores-and-host-files.5', 'server-configuration.8', 'what-the-service-does.10', 'authentication.4'],
    requires: ['hostFiles', 'hostFilesWrite', 'principal:tenantA'],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const roots = await ctx.http('GET', '/fs/roots')
      ctx.status('engine-session-stores-and-host-files.2', roots, 200)
      // ListHostRootsResponse states `canWrite`; the rest of the /fs shapes is not shown
      // (engine-session-stores-and-host-files.7): a listing only has to name what it lists.
      ctx.check('engine-session-stores-and-host-files.2', roots.text.includes(JSON.stringify(root).slice(1, -1)) && typeof roots.json?.canWrite === 'boolean', 'the cwd root listed, and canWrite', roots.json)
      const name = `${ctx.unique('kit-find')}.txt`
      const path = `${root}/${name}`
      ctx.created('engine-session-stores-and-host-files.6', await ctx.http('PUT', '/fs/write', { body: { path, content: 'hello host' } }), 200)
      const list = await ctx.http('GET', `/fs/list?path=${encodeURIComponent(root)}`)
      ctx.check('engine-session-stores-and-host-files.3', list.status === 200 && list.text.includes(name), 'the new file in the listing', list.text.slice(0, 300))
      const find = await ctx.http('GET', `/fs/find?path=${encodeURIComponent(root)}&q=${encodeURIComponent(name.slice(0, 12))}`)
      ctx.check('engine-session-stores-and-host-files.4', find.status === 200 && find.text.includes(name), 'find matches the file by a subsequence of its name', find.text.slice(0, 300))
      const read = await ctx.http('GET', `/fs/read?path=${encodeURIComponent(path)}`)
      ctx.check('engine-session-stores-and-host-files.5', read.json?.content === 'hello host' && typeof (read.json?.hash ?? read.json?.sha256) === 'string', 'content and its sha256', read.json)
      // The spec gives no status for a path outside the roots, a missing file or a relative path:
      // each must be refused; protocol 7's uniform 404 (and 403 for a malformed path) is a note.
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${root}/../../../../etc/hostname`)}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent('/etc/hostname')}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${root}/no-such-file`)}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', '/fs/read?path=relative/path'), { protocol7: 403 })
      // authentication.4: refused to a scoped principal; the status is not shown (protocol 7: 404).
      const scoped = await ctx.http('GET', '/fs/roots', { as: 'tenantA' })
      ctx.check('authentication.4', scoped.status >= 400, '/fs/roots refused to a scoped principal', `HTTP ${scoped.status}`)
      ctx.observe(scoped.status === 404, `/fs/roots refused to a scoped principal with ${scoped.status} (protocol 7: 404; authentication.4: not shown)`)
    },
  },
  {
    id: 'host-files-conditional-write', title: 'PUT /fs/write creates only new files, replaces only with the current hash, never creates directories', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.6', 'other-shapes.8', 'errors.6', 'errors.3'], requires: ['hostFiles', 'hostFilesWrite'],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const path = `${root}/${ctx.unique('kit-write')}.txt`
      const created = await ctx.http('PUT', '/fs/write', { body: { path, content: 'one' } })
      ctx.created('engine-session-stores-and-host-files.6', created, 200)
      ctx.errorStatus('errors.6', await ctx.http('PUT', '/fs/write', { body: { path, content: 'blind overwrite' } }), 409)
      const read = await ctx.http('GET', `/fs/read?path=${encodeURIComponent(path)}`)
      // other-shapes.8: the read answer "has content plus sha256"; the field name is open (protocol 7: `hash`).
      const hash = read.json?.hash ?? read.json?.sha256
      ctx.equal('other-shapes.8', hash, createHash('sha256').update('one').digest('hex'), 'the sha256 of the current content')
      const replaced = await ctx.http('PUT', '/fs/write', { body: { path, content: 'two', expectedHash: hash } })
      ctx.created('other-shapes.8', replaced, 200)
      ctx.errorStatus('errors.6', await ctx.http('PUT', '/fs/write', { body: { path, content: 'three', expectedHash: hash } }), 409)
      ctx.equal('other-shapes.8', (await ctx.http('GET', `/fs/read?path=${encodeURIComponent(path)}`)).json?.content, 'two', 'content after the stale write was refused')
      ctx.errorStatus('errors.3', await ctx.http('PUT', '/fs/write', { body: { path: `${root}/no-such-dir-${Math.floor(ctx.random() * 1e9)}/f.txt`, content: 'x' } }), 404)
    },
  },
]
