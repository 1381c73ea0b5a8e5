/** Published views of sheets and reports (migration 0018_publications). Times are epoch ms. */
export interface PublicationTable {
  /** The unguessable token of the view's URL. */
  token: string;
  org_id: number;
  /** sheet or report */
  object_type: string;
  object_id: number;
  /** readOnlyLite, readOnlyFull, readWrite or ical */
  kind: string;
  published_by: number;
  created_at: number;
}

/** Publish settings of a sheet or report (JSON), kept while its views are unpublished. */
export interface PublishSettingsTable {
  object_type: string;
  object_id: number;
  settings: string;
}

export interface PublishTables {
  publications: PublicationTable;
  publish_settings: PublishSettingsTable;
}
