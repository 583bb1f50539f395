/**
 * Explore commands on managed profiles (a target with a profileStore and a manager principal):
 * create one narrowing the grant, create it again, create without the right, delete it, and
 * create sessions on it. Checked: 409 for a taken name, 403 without canManageProfiles
 * (authentication.6), a session's capabilities only narrowing the profile's grant (profiles.6),
 * and a deleted profile no longer creating sessions.
 */
import { command, onPick } from './command.ts'
import { MAX_PROFILES, type ExploreModel } from './model.ts'
import type { World } from './world.ts'

/** The grant every explore profile gives: one named capability, so another is outside it. */
export const GRANTED = 'web_fetch'
const NOT_GRANTED = 'download'

function body(w: World, name: string) {
  const model = w.ctx.manifest.models?.provider?.[0] ?? 'fake-small'
  return { name, engine: 'provider', provider: { id: 'fake', model }, session: { capabilities: [GRANTED], mcpServers: [] } }
}

export function createProfile(as: 'manager' | 'operator') {
  return command(`create profile(as ${as})`, (m) => m.profiles.length < MAX_PROFILES, async (m: ExploreModel, w: World) => {
    const name = w.ctx.unique('explore-profile')
    const res = await w.ctx.http('POST', '/profiles', { as, body: body(w, name) })
    if (res.status < 300) w.ctx.onCleanup(() => w.ctx.http('DELETE', `/profiles/${encodeURIComponent(name)}`, { as: 'manager' }))
    if (as === 'operator') return w.ctx.errorStatus('authentication.6', res, 403)
    w.ctx.created('server-configuration.6', res, 200)
    w.profiles[m.profiles.length] = name
    m.profiles.push({ deleted: false })
  })
}

/** A command on one of the run's profiles (p0, p1, …). */
function onProfile(pick: number, label: (i: number) => string, run: (m: ExploreModel, w: World, i: number) => Promise<void>) {
  return onPick(pick, (m) => m.profiles.length, label, () => true, run)
}

export function recreateProfile(pick: number) {
  return onProfile(pick, (i) => `create profile again(p${i})`, async (m, w, i) => {
    const res = await w.ctx.http('POST', '/profiles', { as: 'manager', body: body(w, w.profiles[i]) })
    if (m.profiles[i].deleted) {
      if (res.status < 300) m.profiles[i].deleted = false
      return w.ctx.created('server-configuration.6', res, 200)
    }
    w.ctx.errorStatus('errors.6', res, 409)
  })
}

export function deleteProfile(pick: number) {
  return onProfile(pick, (i) => `delete profile(p${i})`, async (m, w, i) => {
    const res = await w.ctx.http('DELETE', `/profiles/${encodeURIComponent(w.profiles[i])}`, { as: 'manager' })
    if (m.profiles[i].deleted) return w.ctx.errorStatus('errors.3', res, 404)
    w.ctx.check('server-configuration.7', res.status >= 200 && res.status < 300, 'a 2xx delete of a managed profile', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    m.profiles[i].deleted = true
  })
}

/** profiles.6: a create naming a capability inside the grant is created; one outside it is a 400, as is a deleted profile (errors.4). */
export function sessionOnProfile(pick: number, narrow: boolean) {
  return onProfile(pick, (i) => `create session on p${i}(capabilities ${narrow ? GRANTED : NOT_GRANTED})`, async (m, w, i) => {
    const res = await w.ctx.http('POST', '/sessions', { body: { profile: w.profiles[i], capabilities: [narrow ? GRANTED : NOT_GRANTED] } })
    const id = res.json?.session?.id
    if (res.status < 300 && typeof id === 'string') w.ctx.onCleanup(() => w.ctx.http('DELETE', `/sessions/${id}`))
    if (m.profiles[i].deleted) return w.ctx.errorStatus('errors.4', res, 400)
    if (narrow) return w.ctx.status('profiles.6', res, 201)
    w.ctx.errorStatus('profiles.6', res, 400)
  })
}
