/**
 * Every case of the suite, laid out as the spec is: cases/<part>/<section>.ts (or cases/<part>.ts for
 * a part without sections), each case in the section of its first clause. Ids are unique and stable
 * (a test checks both); report order is the spec's order.
 */
import type { Case } from '../types.ts'
import { embeddingRulesCases } from './what-the-service-does/embedding-rules.ts'
import { scopeCases } from './resources-and-their-fields/scope.ts'
import { sessionCases } from './resources-and-their-fields/session.ts'
import { createsessionrequestCases } from './resources-and-their-fields/createsessionrequest.ts'
import { updatesessionrequestCases } from './resources-and-their-fields/updatesessionrequest.ts'
import { eventAndCommandEnvelopeCases } from './resources-and-their-fields/event-and-command-envelope.ts'
import { engineCapabilityRecordCases } from './resources-and-their-fields/engine-capability-record.ts'
import { profileCases } from './resources-and-their-fields/profile.ts'
import { otherShapesCases } from './resources-and-their-fields/other-shapes.ts'
import { serverConfigurationCases } from './resources-and-their-fields/server-configuration.ts'
import { queueOptionsCases } from './resources-and-their-fields/queue-options.ts'
import { sessionStatusValuesCases } from './states-and-transitions/session-status-values.ts'
import { permissionRequestCases } from './states-and-transitions/permission-request.ts'
import { jobStatusCases } from './states-and-transitions/job-status.ts'
import { sessionsCases } from './endpoints/sessions.ts'
import { websocketFramingCases } from './endpoints/websocket-framing.ts'
import { commandsCases } from './endpoints/commands.ts'
import { profilesCases } from './endpoints/profiles.ts'
import { engineSessionStoresAndHostFilesCases } from './endpoints/engine-session-stores-and-host-files.ts'
import { jobsAndQueueCases } from './endpoints/jobs-and-queue.ts'
import { peersCases } from './endpoints/peers.ts'
import { authenticationCases } from './authentication.ts'
import { eventsCases } from './events.ts'
import { protocol7ClientEventsCases } from './events/protocol-7-clients.ts'
import { errorsCases } from './errors.ts'
import { limitsCases } from './limits.ts'
import { versioningCases } from './versioning.ts'

export const ALL_CASES: Case[] = [
  ...embeddingRulesCases,
  ...scopeCases,
  ...sessionCases,
  ...createsessionrequestCases,
  ...updatesessionrequestCases,
  ...eventAndCommandEnvelopeCases,
  ...engineCapabilityRecordCases,
  ...profileCases,
  ...otherShapesCases,
  ...serverConfigurationCases,
  ...queueOptionsCases,
  ...sessionStatusValuesCases,
  ...permissionRequestCases,
  ...jobStatusCases,
  ...sessionsCases,
  ...websocketFramingCases,
  ...commandsCases,
  ...profilesCases,
  ...engineSessionStoresAndHostFilesCases,
  ...jobsAndQueueCases,
  ...peersCases,
  ...authenticationCases,
  ...eventsCases,
  ...protocol7ClientEventsCases,
  ...errorsCases,
  ...limitsCases,
  ...versioningCases,
]
