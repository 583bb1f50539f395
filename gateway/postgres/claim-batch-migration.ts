/**
 * Migration 10: several claims in one round trip. The pump of a process
 * with N free slots claimed one job per call, each call under the exclusive claim lock, so a
 * process's claim rate was one job per round trip. `gateway_claim_batch` takes the same lock,
 * counts the fleet's running jobs as `gateway_claim` does, and claims up to `p_count` of the
 * oldest runnable jobs, never more than the free slots (maxConcurrency holds fleet-wide exactly as
 * one claim at a time does: the count and the claims are under the one lock). Refused for want of
 * a slot, it asks the next release to notify, as `gateway_claim` does.
 */
export const claimBatchMigration = `
  CREATE FUNCTION gateway_claim_batch(p_now bigint, p_worker text, p_lease_ms double precision, p_max_running integer, p_lock bigint, p_count integer)
  RETURNS TABLE (info jsonb, request jsonb) LANGUAGE plpgsql AS $$
  DECLARE
    v_free integer;
  BEGIN
    PERFORM pg_advisory_xact_lock(p_lock);
    v_free := p_max_running - (SELECT count(*) FROM (SELECT 1 FROM gateway_jobs j WHERE j.status = 'running' LIMIT p_max_running) r);
    IF v_free <= 0 THEN
      PERFORM gateway_wait_for_slot();
      RETURN;
    END IF;
    RETURN QUERY
      WITH picked AS (
        SELECT q.id, q.seq FROM gateway_jobs q
        WHERE q.status = 'queued' AND (q.next_run_at IS NULL OR q.next_run_at <= p_now)
        ORDER BY q.seq FOR UPDATE SKIP LOCKED LIMIT least(v_free, p_count)
      ), claimed AS (
        UPDATE gateway_jobs j SET info = jsonb_set(j.info, '{status}', '"running"'), lease_owner = p_worker,
          lease_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000)
        FROM picked WHERE j.id = picked.id RETURNING j.info, j.request, picked.seq
      )
      SELECT c.info, c.request FROM claimed c ORDER BY c.seq;
  END $$;
`
