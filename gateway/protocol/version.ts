/** Bumped on any breaking change to events, commands or REST shapes (versioning.1). */
export const PROTOCOL_VERSION = 7
