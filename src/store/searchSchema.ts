/** The full-text search index (migration 0022, store/searchIndex.ts). Times are epoch ms. */
export interface SearchDocTable {
  id: number;
  /** What a result is: sheet, report, folder, workspace, sight, row, discussion, attachment, summaryField. */
  object_type: string;
  object_id: number;
  /** The piece of the object: a row's column, a discussion's comment (0: the title); else 0. */
  part_id: number;
  sheet_id: number | null;
  /** What a result shows. */
  text: string;
  modified_at: number;
  /** PostgreSQL only: the words, written as tsvector text (engine/search.ts tsvectorText). */
  tsv?: string;
}

/** SQLite only: the FTS5 index of search_docs (rowid = search_docs.id), contentless. */
export interface SearchFtsTable {
  rowid: number;
  words: string;
}

export interface SearchIndexStateTable {
  id: number;
  /** The change-log position the index has caught up with; null: build it from the data. */
  pos: number | null;
  updated_at: number;
}

export interface SearchTables {
  search_docs: SearchDocTable;
  search_fts: SearchFtsTable;
  search_index_state: SearchIndexStateTable;
}
