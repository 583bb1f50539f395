/**
 * What one process of the self-fleet target adds to the self-serve configuration file: its
 * process id, the shared forward secret (from the environment, never in the file), and the
 * managed profile store on the fleet's database.
 */
import { DATABASE_ENV } from './self-serve-config.ts'

/** The environment variable every process of the fleet reads the shared forward secret from. */
export const FORWARD_SECRET_ENV = 'GATEWAY_SELF_FLEET_FORWARD_SECRET'

export interface FleetMember {
  /** The process id the fleet's session directory names this process by (a restarted process takes a new one). */
  id: string
}

/**
 * The `fleet` section (docs/configuration.md): the process id, and the secret's variable. The
 * address is left to its default, the URL the process listens on (loopback, its own port).
 */
export function fleetMemberConfig(base: Record<string, unknown>, member: FleetMember): Record<string, unknown> {
  const queue = base.queue as { adapter: Record<string, unknown> }
  return {
    ...base,
    // A short lease (the directory's follows it): the killed process's claims and sessions are
    // the fleet's again within seconds, not the default 30 s in which its stale running claims
    // would hold the fleet's two job slots (queue.maxConcurrency) while the next cases wait.
    queue: { ...queue, adapter: { ...queue.adapter, leaseMs: FLEET_LEASE_MS } },
    fleet: { processId: member.id, secretEnv: FORWARD_SECRET_ENV },
    // Managed profiles are the fleet's, not one process's file (server-configuration.6): a
    // profile created through one process is known to, and deleted from, all of them at once.
    profileStore: { kind: 'postgres', urlEnv: DATABASE_ENV },
  }
}

/** The queue's claim lease and the fleet directory's process lease. */
export const FLEET_LEASE_MS = 4000
