/**
 * Where the cases of each spec section live: the file of a section holds exactly the cases whose
 * `section` (and first clause) is that section (conformance/test/case-layout.test.ts). A section
 * too large for one file keeps further files, one concept each, in a folder named as its file.
 */
export const SECTION_FILES: Record<string, string> = {
  'embedding-rules': 'conformance/cases/what-the-service-does/embedding-rules.ts',
  'scope': 'conformance/cases/resources-and-their-fields/scope.ts',
  'session': 'conformance/cases/resources-and-their-fields/session.ts',
  'createsessionrequest': 'conformance/cases/resources-and-their-fields/createsessionrequest.ts',
  'updatesessionrequest': 'conformance/cases/resources-and-their-fields/updatesessionrequest.ts',
  'event-and-command-envelope': 'conformance/cases/resources-and-their-fields/event-and-command-envelope.ts',
  'engine-capability-record': 'conformance/cases/resources-and-their-fields/engine-capability-record.ts',
  'profile': 'conformance/cases/resources-and-their-fields/profile.ts',
  'other-shapes': 'conformance/cases/resources-and-their-fields/other-shapes.ts',
  'server-configuration': 'conformance/cases/resources-and-their-fields/server-configuration.ts',
  'queue-options': 'conformance/cases/resources-and-their-fields/queue-options.ts',
  'session-status-values': 'conformance/cases/states-and-transitions/session-status-values.ts',
  'permission-request': 'conformance/cases/states-and-transitions/permission-request.ts',
  'job-status': 'conformance/cases/states-and-transitions/job-status.ts',
  'sessions': 'conformance/cases/endpoints/sessions.ts',
  'websocket-framing': 'conformance/cases/endpoints/websocket-framing.ts',
  'commands': 'conformance/cases/endpoints/commands.ts',
  'profiles': 'conformance/cases/endpoints/profiles.ts',
  'engine-session-stores-and-host-files': 'conformance/cases/endpoints/engine-session-stores-and-host-files.ts',
  'jobs-and-queue': 'conformance/cases/endpoints/jobs-and-queue.ts',
  'peers': 'conformance/cases/endpoints/peers.ts',
  'authentication': 'conformance/cases/authentication.ts',
  'events': 'conformance/cases/events.ts',
  'errors': 'conformance/cases/errors.ts',
  'limits': 'conformance/cases/limits.ts',
  'versioning': 'conformance/cases/versioning.ts',
}

/** The further files of a section (MORE_SECTION_FILES), each under `<its file without .ts>/`. */
export const MORE_SECTION_FILES: Record<string, string[]> = {
  'events': ['conformance/cases/events/protocol-7-clients.ts'],
}

/** Every file holding cases of `section`, its own file first. */
export function sectionFiles(section: string): string[] {
  const own = SECTION_FILES[section]
  return own ? [own, ...(MORE_SECTION_FILES[section] ?? [])] : []
}
