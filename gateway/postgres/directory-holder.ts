/**
 * The one SQL test of "another live process runs this session": its row in the fleet's session
 * directory names another process whose lease holds by the database's clock (migration 11). The
 * session store's write fence and the directory's lease-lapse check both ask it.
 */
export function heldByLivePeer(sessionId: string, me: string): string {
  return `EXISTS (SELECT 1 FROM gateway_session_directory d
    JOIN gateway_fleet_members m ON m.process_id = d.process_id AND m.lease_until > clock_timestamp()
    WHERE d.session_id = ${sessionId} AND d.process_id <> ${me})`
}
