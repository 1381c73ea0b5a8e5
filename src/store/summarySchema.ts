/** Sheet summary fields (migration 0014). Times are epoch ms. */
export interface SummaryFieldTable {
  id: number;
  sheet_id: number;
  /** 0-based position in the summary */
  idx: number;
  title: string;
  /** JSON: the field's column-like definition (type, options, symbol, format, validation, locked, ...) */
  def: string;
  /** JSON: the field's content, a stored cell (value, formula, hyperlink, image, format) */
  cell: string;
  created_at: number;
  created_by: number | null;
  modified_at: number;
  modified_by: number | null;
}

export interface SummaryTables {
  summary_fields: SummaryFieldTable;
}
