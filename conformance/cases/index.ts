/** Every case of the suite, in report order. Ids are unique and stable (a test checks both). */
import type { Case } from '../types.ts'
import { attachmentCases } from './attachments.ts'
import { authenticationCases } from './authentication.ts'
import { cliPrimaryCases } from './cli-primary.ts'
import { compatibilityCases } from './compatibility.ts'
import { cliSecondaryCases } from './cli-secondary.ts'
import { createRequestCases } from './create-request.ts'
import { sessionEdgeCases } from './edges-session.ts'
import { hostFileCases } from './host-files.ts'
import { jobCases } from './jobs.ts'
import { notificationCases } from './notifications.ts'
import { parkingCases } from './parking.ts'
import { peerCases } from './peers.ts'
import { availabilityCases, profileDefaultCases, serverCases } from './server.ts'
import { sessionCases } from './sessions.ts'
import { websocketCases } from './websocket.ts'

export const ALL_CASES: Case[] = [...sessionCases, ...createRequestCases, ...authenticationCases, ...websocketCases, ...serverCases, ...profileDefaultCases, ...jobCases, ...notificationCases, ...parkingCases, ...availabilityCases, ...cliPrimaryCases, ...cliSecondaryCases, ...attachmentCases, ...hostFileCases, ...peerCases, ...compatibilityCases, ...sessionEdgeCases]
