/**
 * Managed profiles at start: the profile store's records join the catalog next to the declared
 * ones (a declared name wins), and an empty store is seeded with the detected profiles when the
 * embedder declared none, so a fresh install has something to list.
 */
import { detectProfiles, validateProfiles, type ProfileCatalog } from './profiles.ts'
import type { ProfileStore } from './profile-store.ts'

export interface ManagedProfileOptions {
  /** Whether the embedder declared profiles (then nothing is seeded). */
  declared: boolean
  /** Whether the embedder supplies its own engine runner (validateProfiles relaxes engine checks). */
  customRunner: boolean
  onError(err: unknown, where: string): void
}

export async function loadManagedProfiles(store: ProfileStore, catalog: ProfileCatalog, options: ManagedProfileOptions): Promise<void> {
  let stored = await store.list()
  if (!stored.length && !options.declared) {
    for (const detected of detectProfiles()) await store.save(detected)
    stored = await store.list()
  }
  for (const profile of stored) {
    if (catalog.isDeclared(profile.name)) continue
    try {
      catalog.setManaged(validateProfiles([profile], options.customRunner)[0])
    } catch (err) {
      options.onError(err, 'profile-store') // one bad stored profile must not keep the server down
    }
  }
}
