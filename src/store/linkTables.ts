/** Tables of cell links and cross-sheet references (migration 0006). */
export interface CellLinkTable {
  target_sheet_id: number;
  target_row_id: number;
  target_column_id: number;
  source_sheet_id: number;
  source_row_id: number;
  source_column_id: number;
}

export interface CrossSheetRefTable {
  id: number;
  sheet_id: number;
  name: string;
  /** The name as formulas match it (case-insensitive). */
  name_key: string;
  source_sheet_id: number;
  start_row_id: number | null;
  end_row_id: number | null;
  start_column_id: number | null;
  end_column_id: number | null;
  created_by: number;
  created_at: number;
}

export interface LinkTables {
  cell_links: CellLinkTable;
  cross_sheet_refs: CrossSheetRefTable;
}
