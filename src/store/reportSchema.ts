/** Reports (migration 0015_reports). Times are epoch ms. */
export interface ReportTable {
  id: number;
  org_id: number;
  owner_id: number;
  name: string;
  /** Enclosing folder (home or workspace folder), or null at the top of a home or workspace. */
  folder_id: number | null;
  /** Workspace holding the report (at any depth), or null in a home. */
  workspace_id: number | null;
  /** JSON: ReportDefinition of services/assets/reports.ts (columns, filter, sort). */
  definition: string;
  created_at: number;
  modified_at: number;
}

/** A source of a report: a sheet, or a workspace (every sheet in it, at any depth). */
export interface ReportSourceTable {
  report_id: number;
  /** sheet or workspace */
  object_type: string;
  object_id: number;
}

export interface ReportTables {
  reports: ReportTable;
  report_sources: ReportSourceTable;
}
