/**
 * What one process of the self-fleet target adds to the self-serve configuration file: its
 * process id and the address the other processes forward its sessions' requests to, and the
 * shared forward secret (from the environment, never in the file), the settings
 * docs/configuration.md documents for a fleet.
 */

/** The environment variable every process of the fleet reads the shared forward secret from. */
export const FORWARD_SECRET_ENV = 'GATEWAY_SELF_FLEET_FORWARD_SECRET'

export interface FleetMember {
  /** The process id the fleet's session directory names this process by (a restarted process takes a new one). */
  id: string
  /** Where the other processes reach this one (loopback, its own port). */
  url: string
}

export function fleetMemberConfig(base: Record<string, unknown>, member: FleetMember): Record<string, unknown> {
  void member
  // Wiring pending the fleet settings (process id, address, forward secret): the base file as is.
  return { ...base }
}
