import type { FastifyInstance } from 'fastify';
import { serverInfoRoutes } from './serverinfo.ts';
import { userRoutes } from './users.ts';
import { eventRoutes } from './events.ts';
import { groupRoutes } from './groups.ts';
import { contactRoutes } from './contacts.ts';
import { domainRoutes } from './domains.ts';
import { cellHistoryRoutes } from './cellHistory.ts';
import { columnRoutes } from './columns.ts';
import { rowRoutes } from './rows.ts';
import { sheetDataRoutes } from './sheetData.ts';

import { homeRoutes } from './home.ts';
import { folderRoutes } from './folders.ts';
import { workspaceRoutes } from './workspaces.ts';
import { sheetObjectRoutes } from './sheetObjects.ts';
import { shareRoutes } from './shares.ts';
import { favoriteRoutes } from './favorites.ts';
import { templateRoutes } from './templates.ts';
import { crossSheetRefRoutes } from './crossSheetRefs.ts';
import { imageRoutes } from './images.ts';
import { viewRoutes } from './views.ts';
import { webhookRoutes } from './webhooks.ts';
/** Every resource family, mounted under /2.0. */
export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(serverInfoRoutes);
  await app.register(userRoutes);
  await app.register(eventRoutes);
  await app.register(groupRoutes);
  await app.register(contactRoutes);
  await app.register(domainRoutes);
  await app.register(rowRoutes);
  await app.register(import('./rowTransfer.ts'));
  await app.register(columnRoutes);
  await app.register(cellHistoryRoutes);
  await app.register(homeRoutes);
  await app.register(folderRoutes);
  await app.register(workspaceRoutes);
  await app.register(sheetObjectRoutes);
  await app.register(shareRoutes);
  await app.register(favoriteRoutes);
  await app.register(templateRoutes);
  await app.register(crossSheetRefRoutes);
  await app.register(imageRoutes);
  await app.register(viewRoutes);
  await app.register(webhookRoutes);
  await app.register(sheetDataRoutes);
}
