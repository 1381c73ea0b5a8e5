/**
 * The formula engine: pure TypeScript (no HTTP, no SQL), used by the sheet service.
 *
 * Design (HyperFormula's shape): text -> parser -> tree -> dependency graph -> evaluator.
 *
 * - parser.ts turns `=SUM([Col A]1:[Col A]@row)` into a tree whose references hold cell
 *   IDENTITY: column id + row id, or `@row` (the host row). Renaming a column or moving rows
 *   therefore keeps every formula on the same cells; render.ts rebuilds the text a client sees
 *   from the original text, re-writing only the references (new title, new row number, `#REF`
 *   for a deleted row or column). Text that does not parse gives a Formula with ok: false that
 *   evaluates to #UNPARSEABLE (#IMBALANCED for unmatched parentheses); nothing throws.
 * - evaluator.ts computes one host cell through an EvalContext (no sheet model of its own), so
 *   one tree serves every row of a column formula. Errors are values, never exceptions: the
 *   cell shows their text ("#DIVIDE BY ZERO"); a referenced cell holding an error reads as
 *   #BLOCKED. Values: number, text, boolean, blank (null), date ({kind:'date', days} from
 *   1970-01-01, so a result can be written into a DATE column as YYYY-MM-DD), time of day
 *   ({kind:'time', secs, format, precision} from TIME(), written as its display text), multi-value.
 *   The function library (functions/) is split by family; coerce.ts holds the conversions.
 * - deps.ts lists what a formula reads; graph.ts indexes it reversed: single cells, whole
 *   columns (one shared node), ranges per column (those sharing a start row chained through one
 *   step per row, so 25,000 running totals are linear; others indexed by 64-row blocks), and
 *   cross-sheet names. Recalculation visits only what is reachable from the changed cells, in
 *   topological order (iterative Tarjan); every cell on a cycle shows #CIRCULAR REFERENCE and
 *   cells reading them #BLOCKED. aggregates.ts keeps running totals per column and top row, so
 *   SUM/COUNT/AVG([B]$1:[B]@row) cost O(1) a row.
 * - engine.ts (FormulaEngine) holds one sheet's formulas and the inputs they read, and turns
 *   each change the service reports into the list of cells whose shown value changed.
 *
 * Wiring (see the FormulaEngine methods): build one engine per loaded sheet with its columns
 * and rows (display order, parentId), `load()` its values and formulas; then report every
 * write (setCellValue / setFormula / clearFormula / setColumnFormula), row change (addRows /
 * moveRows / deleteRows), column change (addColumn / renameColumn / setColumnType /
 * deleteColumn) and write back the returned CellChange values. Formula text sent by clients
 * is checked with validateFormulaText (error 1162) and read back with formulaOf (rendered).
 * TODAY(): when needsTodayRefresh() is true on read, call refreshToday(). Cross-sheet
 * `{Name}` data comes from the `crossSheet` option; call crossSheetChanged(name) when the
 * source changes (crossSheetReferences() lists the names a sheet uses).
 */
export {
  FormulaEngine,
  type CellChange,
  type CrossSheetData,
  type EngineColumn,
  type FormulaCellInfo,
  type FormulaEngineOptions,
  type LoadCell,
} from './engine.ts';
export type { RowInfo } from './rows.ts';
export { isFormulaText, parseFormula, validateFormulaText } from './parser.ts';
export { needsBrackets, render } from './render.ts';
export { SUMMARY_REF_PREFIX, summaryRefTitle } from './lexer.ts';
export { evaluate, FormulaEvaluator, type EvalContext } from './evaluator.ts';
export { crossSheetNames, isTimeDependent } from './deps.ts';
export { staticSchema, type SheetSchema } from './schema.ts';
export { FUNCTION_NAMES } from './functions/names.ts';
export type { ColumnId, Formula, Node, RowId } from './ast.ts';
export {
  ERROR_CODES,
  err,
  formatDate,
  formatTime,
  inputToScalar,
  isDate,
  isError,
  isTime,
  parseIsoDate,
  toFormulaResult,
  type CellInput,
  type ColumnType,
  type DateValue,
  type ErrorCode,
  type ErrorValue,
  type FormulaResult,
  type MultiValue,
  type RangeValue,
  type RawCellValue,
  type ResultType,
  type Scalar,
  type TimeValue,
  type Value,
} from './values.ts';
