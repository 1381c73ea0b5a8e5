/**
 * Every function name the parser accepts (upper case). A name outside this list makes the
 * formula unparseable; the library (functions/index.ts) implements exactly these.
 */
export const FUNCTION_NAMES = [
  // logic and information
  'IF', 'AND', 'OR', 'NOT', 'IFERROR', 'ISBLANK', 'ISNUMBER', 'ISTEXT', 'ISDATE', 'ISBOOLEAN',
  'ISERROR', 'ISEVEN', 'ISODD', 'CONTAINS', 'HAS',
  // numbers and statistics
  'SUM', 'SUMIF', 'SUMIFS', 'SUMPRODUCT', 'COUNT', 'COUNTIF', 'COUNTIFS', 'COUNTM', 'AVG',
  'AVGW', 'AVERAGEIF', 'AVERAGEIFS', 'MIN', 'MAX', 'MEDIAN', 'LARGE', 'SMALL', 'RANKEQ',
  'RANKAVG', 'PERCENTILE', 'STDEVA', 'STDEVP', 'STDEVPA', 'STDEVS', 'ROUND', 'ROUNDUP',
  'ROUNDDOWN', 'MROUND', 'CEILING', 'FLOOR', 'INT', 'ABS', 'MOD',
  // text
  'LEN', 'LEFT', 'RIGHT', 'MID', 'FIND', 'SUBSTITUTE', 'REPLACE', 'UPPER', 'LOWER', 'JOIN',
  'CHAR', 'UNICHAR', 'VALUE', 'REPT',
  // dates
  'TODAY', 'DATE', 'DATEONLY', 'DAY', 'MONTH', 'YEAR', 'WEEKDAY', 'WEEKNUMBER', 'YEARDAY',
  'WORKDAY', 'NETWORKDAY', 'NETWORKDAYS', 'NETDAYS', 'TIME',
  // lookup and ranges
  'INDEX', 'MATCH', 'VLOOKUP', 'XLOOKUP', 'COLLECT', 'DISTINCT',
  // hierarchy
  'CHILDREN', 'PARENT', 'ANCESTORS',
] as const;

export type FunctionName = (typeof FUNCTION_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(FUNCTION_NAMES);

export function isFunctionName(upper: string): upper is FunctionName {
  return NAMES.has(upper);
}
