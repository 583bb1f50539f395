/**
 * Migration 11: the fleet's session directory. Which process runs each live session, at what
 * address the other processes reach it, and the session's fencing epoch (bumped by every change
 * of owner, so an adoption is one conditional UPDATE that exactly one process wins).
 */
export const sessionDirectoryMigration = `
  -- One row per gateway process: its address for forwarded requests and its lease, renewed by its
  -- heartbeat. A process whose lease lapsed (or whose row is gone: a graceful stop deletes it) is dead.
  CREATE TABLE gateway_fleet_members (
    process_id text PRIMARY KEY,
    address text NOT NULL,
    lease_until timestamptz NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now()
  );
  -- One row per live session: written when a process creates or adopts it, deleted when it closes
  -- or parks (a park is adoptable through gateway_sessions). info is the SessionInfo at the claim:
  -- its scope stamp lets the arriving process refuse a scope miss before forwarding.
  CREATE TABLE gateway_session_directory (
    session_id text PRIMARY KEY,
    process_id text NOT NULL,
    epoch bigint NOT NULL DEFAULT 1,
    info jsonb NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX gateway_session_directory_process ON gateway_session_directory (process_id);
`
