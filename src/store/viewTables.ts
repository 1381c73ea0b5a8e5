/** Tables of sheet filters and conditional-format rules (migration 0007). */
export interface SheetFilterTable {
  id: number;
  sheet_id: number;
  name: string;
  /** The name as uniqueness compares it (case-insensitive). */
  name_key: string;
  filter_type: 'PERSONAL' | 'SHARED';
  owner_id: number;
  exclude_selected: number;
  include_parent: number;
  /** JSON of the engine's CriteriaQuery. */
  query: string;
  created_at: number;
  modified_at: number;
}

/** The filter each user has applied to a sheet (at most one). */
export interface SheetFilterAppliedTable {
  sheet_id: number;
  user_id: number;
  filter_id: number;
}

/** A sheet's conditional-format rules, in order (JSON array of ConditionalRule). */
export interface SheetConditionalFormatTable {
  sheet_id: number;
  rules: string;
}

export interface ViewTables {
  sheet_filters: SheetFilterTable;
  sheet_filter_applied: SheetFilterAppliedTable;
  sheet_conditional_formats: SheetConditionalFormatTable;
}
