/** Dashboards (sights) (migration 0017_sights). Times are epoch ms. */
export interface SightTable {
  id: number;
  org_id: number;
  owner_id: number;
  name: string;
  /** Enclosing folder (home or workspace folder), or null at the top of a home or workspace. */
  folder_id: number | null;
  /** Workspace holding the dashboard (at any depth), or null in a home. */
  workspace_id: number | null;
  /** JSON: StoredWidget[] of engine/sights.ts (the widgets as defined, without live contents). */
  widgets: string;
  background_color: string | null;
  default_widget_background_color: string | null;
  column_count: number;
  /** The dashboard this one was copied from (include=source), or null. */
  source_id: number | null;
  /** The token of the published URL, or null when not published. */
  publish_token: string | null;
  /** ALL or ORG (who may open the published URL), or null when not published. */
  publish_accessible_by: string | null;
  created_at: number;
  modified_at: number;
}

/** An image of a dashboard's IMAGE widgets (bytes on the blob store). */
export interface SightImageTable {
  sight_id: number;
  /** the widget's privateId */
  id: string;
  blob_key: string;
  size: number;
  mime_type: string;
  width: number;
  height: number;
  file_name: string | null;
  created_at: number;
  created_by: number;
}

export interface SightTables {
  sights: SightTable;
  sight_images: SightImageTable;
}
