/** Matrix of § What the service does (capabilities, embedding rules). */
import type { PartMatrix } from '../part.ts'
import { ON_EVERY_ENGINE, PROVIDER_ONLY } from './common.ts'

export const whatTheServiceDoes: PartMatrix = {
  sections: {},
  clauses: {
    // Engines selected by the profile's `engine`: each one a session can run on.
    'what-the-service-does.5': ON_EVERY_ENGINE,
    'embedding-rules.6': PROVIDER_ONLY,
    'embedding-rules.7': PROVIDER_ONLY,
    'embedding-rules.8': PROVIDER_ONLY,
    'embedding-rules.9': PROVIDER_ONLY,
    'embedding-rules.10': PROVIDER_ONLY,
    // A restart: the provider engine rebuilds from persistLive, the CLI engines go dormant.
    'embedding-rules.14': ON_EVERY_ENGINE,
  },
}
