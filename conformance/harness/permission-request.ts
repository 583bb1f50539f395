/**
 * The id to answer a permission request by. The spec names the command field (`permission_decision`
 * `requestId`, commands.2) and the route (`/permissions/:requestId`), but does not show
 * PermissionRequest (other-shapes.6): the id may be the request's `requestId` (this gateway) or `id`
 * (protocol 7's client), or sit on the `permission_requested` event itself. Cases read it only here.
 */
export function permissionRequestIdOf(event: any): string | undefined {
  const candidates = [event?.request?.requestId, event?.request?.id, event?.requestId]
  return candidates.find((c): c is string => typeof c === 'string')
}
