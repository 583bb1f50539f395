/**
 * Migration 12: managed profiles shared by a fleet (server-configuration.6). One row per managed
 * profile, its configuration as the HTTP routes stored it (names of credential directories and
 * variables, never credential values). The primary key makes a create atomic across processes:
 * two processes creating one name at once get one 200 and one 409 (errors.6).
 */
export const profilesMigration = `
  CREATE TABLE gateway_profiles (
    name text PRIMARY KEY,
    profile jsonb NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now()
  );
`
