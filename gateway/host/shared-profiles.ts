/**
 * Managed profiles in a store the processes of a fleet share (server-configuration.6): before a
 * managed name is used (a session create, a management request, a profile read, a rebuild of a
 * session adopted from another process), the catalog reads that name from the store, so a
 * profile created, changed or deleted through any process is what this one answers with at once.
 *
 * Read-through rather than a cache invalidated by notifications: a notification arrives after
 * the writer's response, so a client that creates on one process and uses the profile on the
 * next could still be refused in between; one primary-key read per use has no such window and
 * nothing to lose when a listening connection drops. A store that cannot be read keeps the
 * last-known view (reported through onError), as a single process would.
 */
import { validateProfiles, type ProfileCatalog, type ProfileFollower } from './profiles.ts'
import type { ProfileStore } from './profile-store.ts'
import type { ProfileConfig } from '../protocol/index.ts'

export interface SharedProfileOptions {
  /** Whether the embedder supplies its own engine runner (validateProfiles relaxes engine checks). */
  customRunner: boolean
  onError(err: unknown, where: string): void
}

export function followSharedStore(store: ProfileStore, catalog: ProfileCatalog, options: SharedProfileOptions): void {
  if (!store.shared || !store.get) return
  const get = store.get.bind(store)
  // The stored form each managed profile was last taken from: an unchanged row is not re-validated
  // (which would also drop the profile's cached info and learned default model).
  const seen = new Map<string, string>()

  const apply = (name: string, stored: ProfileConfig | undefined) => {
    if (catalog.isDeclared(name)) return // a declared name wins, as at start
    if (!stored) {
      seen.delete(name)
      if (catalog.isManaged(name)) catalog.removeManaged(name)
      return
    }
    const json = JSON.stringify(stored)
    if (seen.get(name) === json && catalog.isManaged(name)) return
    try {
      catalog.setManaged(validateProfiles([stored], options.customRunner)[0])
      seen.set(name, json)
    } catch (err) {
      options.onError(err, 'profile-store') // one bad stored profile must not fail the request
    }
  }

  const follower: ProfileFollower = {
    async refresh(name) {
      let stored: ProfileConfig | undefined
      try {
        stored = await get(name)
      } catch (err) {
        return options.onError(err, 'profile-store')
      }
      apply(name, stored)
    },
    async refreshAll() {
      let stored: ProfileConfig[]
      try {
        stored = await store.list()
      } catch (err) {
        return options.onError(err, 'profile-store')
      }
      const names = new Set(stored.map((p) => p.name))
      for (const profile of catalog.profiles) {
        if (!names.has(profile.name) && catalog.isManaged(profile.name)) apply(profile.name, undefined)
      }
      for (const profile of stored) apply(profile.name, profile)
    },
  }
  catalog.follow(follower)
}
