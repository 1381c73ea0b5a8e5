/** The search filters of `scopes` (the reference's list): search.ts reads them, searchIndex.ts files each source under one. */
export const SEARCH_SCOPES = ['attachments', 'cellData', 'comments', 'folderNames', 'reportNames', 'sheetNames', 'sightNames', 'summaryFields', 'templateNames', 'workspaceNames'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];
