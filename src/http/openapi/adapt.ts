import type { Bodies, Schema } from './schema.ts';

/**
 * Where sheetd's specification (or what sheetd answers beside it) differs from the public service's
 * description, the schemas taken from that description are mended here, each change with its
 * reason (docs/decisions.md, "The OpenAPI document's bodies"). The conformance check of the test
 * suite (conformance.ts) found most of them.
 */

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema) => ({ 'application/json': schema });
const GENERIC = ref('GenericResult');

/** the object at a path of property names below a schema's `properties` */
function prop(schema: Schema, ...names: string[]): Schema {
  let s = schema;
  for (const n of names) s = (s.properties as Record<string, Schema>)[n]!;
  return s;
}

/** Calls `fn` with every `properties` map in a schema, however deep. */
function eachProperties(schema: unknown, fn: (props: Record<string, Schema>) => void): void {
  if (Array.isArray(schema)) {
    for (const x of schema) eachProperties(x, fn);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const s = schema as Schema;
  if (s.properties && typeof s.properties === 'object') fn(s.properties as Record<string, Schema>);
  for (const v of Object.values(s)) eachProperties(v, fn);
}

/** Property by property, wherever the name occurs (the reference repeats its objects inline). */
function mendProperties(props: Record<string, Schema>): void {
  // a cell's (or summary field's) objectValue: the value itself for plain values (a number, a
  // string, a boolean), an object for dates, contacts, durations and predecessors (spec 2.2 names
  // the object types; sheetd answers as the public service does with include=objectValue)
  if (props.objectValue) props.objectValue = ref('CellObjectValue');
  // Webhook.apiClientId is a number (spec 2.3)
  if (props.apiClientId) props.apiClientId = { type: 'number' };
  // timestamps are numbers with numericDates=true
  if (props.lastLogin) props.lastLogin = ref('Timestamp');
  // parentType: the spec's values are COMMENT, PROOF, ROW and SHEET (a proof's discussions and
  // attachments answer PROOF)
  const pt = props.parentType;
  if (pt && Array.isArray(pt.enum) && pt.enum.includes('ROW')) pt.enum = ['COMMENT', 'PROOF', 'ROW', 'SHEET'];
  // a user's alternateEmails are an array of AlternateEmail (the reference's prose; its schema has one object)
  const ae = props.alternateEmails;
  if (ae && (ae.type === 'object' || ae.$ref === '#/components/schemas/UserProfile_alternateEmails')) props.alternateEmails = { type: 'array', items: ae };
  // column ids are numbers everywhere, a webhook's subscope.columnIds too
  const cols = props.columnIds;
  if (cols && cols.type === 'array' && (cols.items as Schema | undefined)?.type === 'string') cols.items = { type: 'number' };
  // FormatTables.decimalCount: an array holding one array of '0'..'5' (spec 2.1)
  const dc = props.decimalCount;
  if (dc && dc.type === 'array' && (dc.items as Schema | undefined)?.type === 'string') dc.items = { type: 'array', items: { type: 'string' } };
}

export function adaptComponents(components: Record<string, Schema>): Record<string, Schema> {
  const c = structuredClone(components);
  eachProperties(c, mendProperties);
  // a profile image's height and width are numbers, as every image's are (the description: strings)
  const pi = c.User_profileImage!;
  prop(pi, 'height').type = 'number';
  prop(pi, 'width').type = 'number';
  c.CellObjectValue = { anyOf: [{ type: ['string', 'number', 'boolean'] }, ref('ObjectValue')] };
  // Event (spec 4.3): objectId is a number, objectType any string (the list of event types is not
  // shown; the reference names only SHEET and WORKSPACE), the time a timestamp (numericDates)
  const event = c.Event!;
  prop(event, 'objectId').type = 'number';
  delete prop(event, 'objectType').enum;
  (event.properties as Record<string, Schema>).eventTimeStamp = ref('Timestamp');
  return c;
}

export function adaptOperations(operations: Record<string, Bodies>): Record<string, Bodies> {
  const o = structuredClone(operations);
  eachProperties(o, mendProperties);
  const set = (key: string, bodies: Partial<Bodies>) => {
    if (!o[key]) throw new Error(`adapt.ts: no operation ${key}`);
    Object.assign(o[key], bodies);
  };

  // List Events: a page of Event objects as the spec describes them (components.Event above)
  set('GET /events', {
    responses: { 200: json({ type: 'object', properties: { nextStreamPosition: { type: 'string' }, moreAvailable: { type: 'boolean' }, data: { type: 'array', items: ref('Event') } } }) },
  });

  // Add Rows and Update Rows take one Row or an array of them and answer in kind (the reference's
  // prose says so; its schema has only the array)
  for (const key of ['POST /sheets/{sheetId}/rows', 'PUT /sheets/{sheetId}/rows']) {
    set(key, { responses: { 200: json({ allOf: [GENERIC, { type: 'object', properties: { result: { anyOf: [ref('Row'), { type: 'array', items: ref('Row') }] } } }] }) } });
  }
  // Add Columns likewise: "either a single Column object or an array", its prose says
  set('POST /sheets/{sheetId}/columns', { responses: { 200: json({ allOf: [GENERIC, { type: 'object', properties: { result: { anyOf: [ref('Column'), { type: 'array', items: ref('Column') }] } } }] }) } });

  // Get Sheet answers the Sheet object (its columns and rows too), not the abbreviated form of a
  // folder's list; in other formats the file itself
  const getSheet = o['GET /sheets/{sheetId}']!;
  getSheet.responses[200]!['application/json'] = ref('Sheet');

  // Update an Update Request: the reference gives no body; it takes the UpdateRequest's fields
  set('PUT /sheets/{sheetId}/updaterequests/{updateRequestId}', { request: json(ref('UpdateRequest')) });
  return o;
}
