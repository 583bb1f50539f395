/** The one record every route reads: the server's services, built once by createGatewayServer. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ProfileAvailability } from '../host/availability.ts'
import type { HostFiles } from '../host/host-files.ts'
import type { ProfileCatalog } from '../host/profiles.ts'
import type { JobQueue } from '../queue/job-queue.ts'
import type { AttachmentStore } from '../sessions/attachments.ts'
import type { ParkingManager } from '../sessions/parking.ts'
import type { SessionRegistry } from '../sessions/registry.ts'
import type { CreatePolicy } from './create-request.ts'
import type { GatewayServerOptions, ResolvedOptions } from './options.ts'
import type { Principal, Visibility } from './principal.ts'
import type { SessionFactory } from './session-factory.ts'

export interface GatewayContext {
  options: GatewayServerOptions
  resolved: ResolvedOptions
  registry: SessionRegistry
  catalog: ProfileCatalog
  factory: SessionFactory
  parking: ParkingManager
  attachments: AttachmentStore
  /** `allowedConfigDirRoots`, canonicalised once at construction (a root that does not exist yet is kept as given). */
  configDirRoots?: readonly string[]
  /** Present when host file roots are configured. */
  hostFiles?: HostFiles
  availability: ProfileAvailability
  visibility: Visibility
  createPolicy: CreatePolicy
  queue?: JobQueue
  /** Fleet: resolves once a new session's directory row is written (a create answers after it). */
  fleetClaimed?: (id: string) => Promise<void>
  /** Fleet: resolves once the directory writes queued for `id` (a close's record delete and release) landed. */
  fleetSettled?: (id: string) => Promise<void>
  /**
   * Fleet: an execution result whose session another live process runs is answered there (a row
   * here may be stale); true when it was. Never for a request another process forwarded.
   */
  fleetExecutionOwner?: (req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal, sessionId: string) => Promise<boolean>
  /** Fleet: an execution result unknown here offered to the other processes; true when one answered. */
  fleetExecution?: (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<boolean>
}
