import type { Bodies, Schema } from './schema.ts';

/**
 * The bodies of sheetd's own operations (/sheetd/...: docs/sheets.md and the families' docs) and
 * of those the official SDKs call that the public service's description does not list.
 */

/** The Error object of spec part B: errorCode, message, refId, and for some codes a detail object. */
const ERROR: Schema = {
  type: 'object',
  required: ['errorCode', 'message'],
  properties: {
    errorCode: { type: 'integer' },
    message: { type: 'string' },
    refId: { type: 'string' },
    detail: { type: 'object' },
  },
};

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const json = (schema: Schema) => ({ 'application/json': schema });
/** a timestamp: `YYYY-MM-DDTHH:MM:SSZ`, or epoch milliseconds with numericDates=true */
const time = ref('Timestamp');

/** Result: message and resultCode, with the created or updated object under `result` */
function result(of?: Schema): Schema {
  return of === undefined ? ref('GenericResult') : { allOf: [ref('GenericResult'), obj({ result: of })] };
}
/** IndexResult: one page of `data` */
function page(of: Schema): Schema {
  return { allOf: [ref('IndexResult'), obj({ data: { type: 'array', items: of } })] };
}
/** a page of the SDKs' token paging: `lastKey` while more follow */
function tokenPage(key: 'data' | 'items', of: Schema): Schema {
  return obj({ [key]: { type: 'array', items: of }, lastKey: str }, { required: [key] });
}
const ok = (schema: Schema): Bodies['responses'] => ({ 200: json(schema) });
const location = obj({ destinationType: { enum: ['folder', 'workspace', 'home'] }, destinationId: { type: ['integer', 'null'] } });

/** sheetd's own objects */
export const SHEETD_COMPONENTS: Record<string, Schema> = {
  Error: ERROR,
  /** the part of the Result object every success answer of a write has */
  GenericResult: obj({
    message: { type: 'string', enum: ['SUCCESS', 'PARTIAL_SUCCESS'] },
    resultCode: { type: 'integer', enum: [0, 3] },
    version: { type: ['integer', 'null'] },
    failedItems: { type: 'array', items: ref('BulkItemFailure') },
  }, { required: ['message', 'resultCode'] }),
  ValidatedDomain: obj({ domain: str, createdAt: time }, { required: ['domain'] }),
  /** a one-time link to set a sign-in password (docs/decisions.md, Users) */
  PasswordLink: obj({ userId: int, email: str, url: str, expiresAt: time, emailed: bool }, { required: ['userId', 'email', 'url', 'expiresAt', 'emailed'] }),
  /** a child of a folder or workspace (the SDKs' AssetReference) */
  AssetReference: obj({
    id: int, name: str, permalink: str, createdAt: time, modifiedAt: time, accessLevel: ref('AccessLevel'),
    resourceType: { enum: ['folder', 'sheet', 'template', 'report', 'sight'] }, ownerId: int, owner: str, source: ref('Source'),
  }, { required: ['id', 'name', 'resourceType'] }),
  /** sheetd's saved filter (docs/sheets.md) */
  SheetFilter: obj({
    id: int, name: str, filterType: str, query: obj({ operator: str, criteria: { type: 'array', items: { type: 'object' } }, includeParent: bool }),
  }, { required: ['id'] }),
  /** a conditional format rule (docs/sheets.md) */
  ConditionalFormatRule: { type: 'object' },
  /** a report's definition (docs/reports.md) */
  ReportDefinition: obj({
    id: int, name: str, ownerId: int, accessLevel: ref('AccessLevel'), permalink: str, location,
    scope: obj({ sheets: { type: 'array', items: obj({ id: int }) }, workspaces: { type: 'array', items: obj({ id: int }) } }),
    columns: { type: 'array', items: obj({ virtualId: int, title: str, type: str, primary: bool, sheetNameColumn: bool, systemColumnType: str, width: int }) },
    filters: {}, sorts: {}, groupings: {}, summarizations: {},
    createdAt: time, modifiedAt: time,
  }, { required: ['id', 'name'] }),
  /** a dashboard's definition (docs/dashboards.md) */
  SightDefinition: obj({
    id: int, name: str, ownerId: int, accessLevel: ref('AccessLevel'), permalink: str, location,
    columnCount: int, widgets: { type: 'array', items: ref('Widget') }, backgroundColor: str, defaultWidgetBackgroundColor: str,
    createdAt: time, modifiedAt: time,
  }, { required: ['id', 'name'] }),
  SightImage: obj({ privateId: str, fileName: str, mimeType: str, width: int, height: int, size: int }, { required: ['privateId'] }),
  WebhookDelivery: obj({
    id: int, kind: str, state: str, createdAt: time, finishedAt: time, nextAttemptAt: time, replayOf: int, body: {},
    attempts: { type: 'array', items: obj({ at: time, statusCode: int, latencyMs: int, error: str }) },
  }, { required: ['id', 'state'] }),
  ProofSettings: obj({ enabled: bool, multiImage: bool }, { required: ['enabled', 'multiImage'] }),
  Snapshot: obj({ name: str, createdAt: str }, { required: ['name', 'createdAt'] }),
  /** the organization's one plan as a user has it (the SDK's UserPlan) */
  UserPlan: obj({ planId: int, planName: str, seatType: str, isInternal: bool }, { required: ['planId', 'seatType'] }),
  /** a column of a report's definition (the SDK's report column) */
  ReportColumnDefinition: obj({
    virtualId: int, version: int, index: int, title: str, type: str, hidden: bool, width: int, validation: bool,
    primary: bool, sheetNameColumn: bool, systemColumnType: str,
  }, { required: ['virtualId', 'title', 'type'] }),
  /** the parts of a report's definition the public paths read and write */
  ReportDefinitionParts: obj({
    filters: { type: 'object' }, groupingCriteria: { type: 'array' }, summarizingCriteria: { type: 'array' }, sortingCriteria: { type: 'array' },
  }),
  ReportScopeAsset: obj({ assetType: { type: 'string' }, assetId: int }, { required: ['assetType', 'assetId'] }),
  /** who has a sheet open, and where (docs/sheets.md, change streams) */
  Viewer: obj({ id: str, userId: int, name: str, email: str, rowId: { type: ['integer', 'null'] }, columnId: { type: ['integer', 'null'] } }, { required: ['id', 'userId'] }),
  Clock: { type: 'object' },
  Fault: { type: 'object' },
};

const sheetFilter = ref('SheetFilter');
const testPage = page({ type: 'object' });

export const SHEETD_OPERATIONS: Record<string, Bodies> = {
  'GET /openapi.json': { responses: ok({ type: 'object', required: ['openapi', 'paths'] }) },
  'GET /validateddomains': { responses: ok(page(ref('ValidatedDomain'))) },
  'POST /validateddomains': { request: json(obj({ domain: str }, { required: ['domain'] })), responses: ok(result(ref('ValidatedDomain'))) },
  'DELETE /validateddomains/{domain}': { responses: ok(result()) },
  'POST /sheetd/users/{userId}/passwordlink': { request: json(obj({ sendEmail: bool })), responses: ok(result(ref('PasswordLink'))) },
  'GET /home': { responses: ok(ref('Home')) },
  'GET /folders/{folderId}/metadata': { responses: ok(ref('Folder')) },
  'GET /folders/{folderId}/children': { responses: ok(tokenPage('data', ref('AssetReference'))) },
  'GET /folders/{folderId}/path': { responses: ok({ anyOf: [ref('Workspace'), ref('Folder')] }) },
  'GET /workspaces/{workspaceId}/metadata': { responses: ok(ref('Workspace')) },
  'GET /workspaces/{workspaceId}/children': { responses: ok(tokenPage('data', ref('AssetReference'))) },
  'GET /sheets/{sheetId}/path': { responses: ok({ anyOf: [ref('Workspace'), ref('Folder'), ref('Sheet')] }) },
  'GET /sights/{sightId}/path': { responses: ok({ anyOf: [ref('Workspace'), ref('Folder'), ref('Sight')] }) },
  'GET /shares': { responses: ok(tokenPage('items', ref('Share'))) },
  'POST /shares': { request: json({ anyOf: [ref('Share'), { type: 'array', items: ref('Share') }] }), responses: ok(result({ type: 'array', items: ref('Share') })) },
  'GET /shares/{shareId}': { responses: ok(ref('Share')) },
  'PATCH /shares/{shareId}': { request: json(obj({ accessLevel: ref('AccessLevel') })), responses: ok(ref('Share')) },
  'DELETE /shares/{shareId}': { responses: ok(result()) },
  'POST /sheetd/sheets/{sheetId}/template': { request: json(obj({ name: str, description: str })), responses: ok(result(ref('Template'))) },
  'GET /sheetd/sheets/{sheetId}/filters': { responses: ok(page(sheetFilter)) },
  'GET /sheets/{sheetId}/filters': { responses: ok(page(sheetFilter)) },
  'GET /sheets/{sheetId}/filters/{filterId}': { responses: ok(sheetFilter) },
  'DELETE /sheets/{sheetId}/filters/{filterId}': { responses: ok(result()) },
  'POST /sheetd/sheets/{sheetId}/filters': { request: json(sheetFilter), responses: ok(result(sheetFilter)) },
  'GET /sheetd/sheets/{sheetId}/filters/{filterId}': { responses: ok(sheetFilter) },
  'PUT /sheetd/sheets/{sheetId}/filters/{filterId}': { request: json(sheetFilter), responses: ok(result(sheetFilter)) },
  'DELETE /sheetd/sheets/{sheetId}/filters/{filterId}': { responses: ok(result()) },
  'GET /sheetd/sheets/{sheetId}/conditionalformats': { responses: ok(page(ref('ConditionalFormatRule'))) },
  'PUT /sheetd/sheets/{sheetId}/conditionalformats': {
    request: json({ anyOf: [{ type: 'array', items: ref('ConditionalFormatRule') }, obj({ rules: { type: 'array', items: ref('ConditionalFormatRule') } })] }),
    responses: ok(result({ type: 'array', items: ref('ConditionalFormatRule') })),
  },
  'POST /webhooks/{webhookId}/resetsharedsecret': { responses: ok(result(obj({ sharedSecret: str }))) },
  'GET /sheetd/webhooks/{webhookId}/deliveries': { responses: ok(page(ref('WebhookDelivery'))) },
  'POST /sheetd/webhooks/{webhookId}/deliveries/{deliveryId}/replay': { responses: ok(result()) },
  'POST /sheetd/reports': { request: json(ref('ReportDefinition')), responses: ok(result(ref('ReportDefinition'))) },
  'GET /sheetd/reports/{reportId}': { responses: ok(ref('ReportDefinition')) },
  'PUT /sheetd/reports/{reportId}': { request: json(ref('ReportDefinition')), responses: ok(result(ref('ReportDefinition'))) },
  'DELETE /sheetd/reports/{reportId}': { responses: ok(result()) },
  'POST /sheetd/sights': { request: json(ref('SightDefinition')), responses: ok(result(ref('SightDefinition'))) },
  'PUT /sheetd/sights/{sightId}': { request: json(ref('SightDefinition')), responses: ok(result(ref('SightDefinition'))) },
  'POST /sheetd/sights/{sightId}/images': {
    request: { 'application/octet-stream': { type: 'string', format: 'binary' }, 'image/*': { type: 'string', format: 'binary' } },
    responses: ok(result(ref('SightImage'))),
  },
  'GET /sheetd/sights/{sightId}/images/{imageId}': { responses: { 200: { 'image/*': { type: 'string', format: 'binary' } } } },
  'GET /attachmentfiles/{token}': { responses: { 200: { '*/*': { type: 'string', format: 'binary' } } } },
  'GET /imageurls/{token}': { responses: { 200: { 'image/*': { type: 'string', format: 'binary' } } } },
  'POST /sheetd/sheets/{sheetId}/automationrules': { request: json(ref('AutomationRule')), responses: ok(result(ref('AutomationRule'))) },
  // the page for a browser, the approval request as JSON for other clients
  'GET /sheetd/approvals/{token}': { responses: { 200: { 'text/html': str, ...json({ type: 'object' }) } } },
  'POST /sheetd/approvals/{token}': { request: { 'application/x-www-form-urlencoded': obj({ decision: str }), ...json(obj({ decision: str })) }, responses: { 200: { 'text/html': str, ...json({ type: 'object' }) } } },
  'GET /sheetd/sheets/{sheetId}/proofing': { responses: ok(ref('ProofSettings')) },
  'PUT /sheetd/sheets/{sheetId}/proofing': { request: json(obj({ enabled: bool, multiImage: bool })), responses: ok(result(ref('ProofSettings'))) },
  // the organization's one plan (SDK 5.3: listUserPlans, upgradeUser, downgradeUser, removeUserFromPlan)
  'GET /users/{userId}/plans': { responses: ok(tokenPage('data', ref('UserPlan'))) },
  'POST /users/{userId}/plans/{planId}/upgrade': { request: json(obj({ seatType: str })), responses: ok(result()) },
  'POST /users/{userId}/plans/{planId}/downgrade': { request: json(obj({ seatType: str })), responses: ok(result()) },
  'DELETE /users/{userId}/plans/{planId}': { responses: ok(result()) },
  // report definitions through the public paths (SDK 5.3)
  'POST /reports': {
    request: json(obj({
      name: str, destination: location, columns: { type: 'array', items: ref('ReportColumnDefinition') },
      scope: { type: 'array', items: ref('ReportScopeAsset') }, filters: { type: 'object' },
      groupingCriteria: { type: 'array' }, summarizingCriteria: { type: 'array' }, sortingCriteria: { type: 'array' },
    })),
    responses: ok(result({ allOf: [ref('Report'), obj({ columns: { type: 'array', items: ref('ReportColumnDefinition') } })] })),
  },
  'DELETE /reports/{reportId}': { responses: ok(result()) },
  'GET /reports/{reportId}/path': { responses: ok({ anyOf: [ref('Workspace'), ref('Folder'), ref('Report')] }) },
  'GET /reports/{reportId}/definition': { responses: ok(ref('ReportDefinitionParts')) },
  'PUT /reports/{reportId}/definition': { request: json(ref('ReportDefinitionParts')), responses: ok(result()) },
  'GET /reports/{reportId}/scope': { responses: ok(tokenPage('data', ref('ReportScopeAsset'))) },
  'POST /reports/{reportId}/scope': { request: json({ type: 'array', items: ref('ReportScopeAsset') }), responses: ok(result()) },
  'DELETE /reports/{reportId}/scope': { request: json({ type: 'array', items: ref('ReportScopeAsset') }), responses: ok(result()) },
  'GET /reports/{reportId}/columns': { responses: ok(tokenPage('data', ref('ReportColumnDefinition'))) },
  'POST /reports/{reportId}/columns': {
    request: json({ anyOf: [ref('ReportColumnDefinition'), { type: 'array', items: ref('ReportColumnDefinition') }] }),
    responses: ok(result({ type: 'array', items: ref('ReportColumnDefinition') })),
  },
  'GET /reports/{reportId}/columns/{columnVirtualId}': { responses: ok(ref('ReportColumnDefinition')) },
  'PUT /reports/{reportId}/columns/{columnVirtualId}': { request: json(ref('ReportColumnDefinition')), responses: ok(result(ref('ReportColumnDefinition'))) },
  'DELETE /reports/{reportId}/columns/{columnVirtualId}': { responses: ok(result()) },
  // the Java SDK's deprecated deleteRow and sendRow (docs/decisions.md, "Operations the SDKs call")
  'DELETE /sheets/{sheetId}/rows/{rowId}': { responses: ok(result()) },
  'POST /sheets/{sheetId}/rows/{rowId}/emails': { request: json(ref('RowEmail')), responses: ok(result()) },
  // a row's proof (sheetd's addition beside the reference's proofs)
  'GET /sheets/{sheetId}/rows/{rowId}/proofs': { responses: ok(page(ref('Proof'))) },
  // change streams and presence (docs/sheets.md)
  'GET /sheetd/sheets/{sheetId}/changes': { responses: { 200: { 'text/event-stream': str } } },
  'POST /sheetd/sheets/{sheetId}/presence': {
    request: json(obj({ presenceId: str, rowId: { type: ['integer', 'null'] }, columnId: { type: ['integer', 'null'] } })),
    responses: ok(result(obj({ presenceId: str }, { required: ['presenceId'] }))),
  },
  'GET /sheetd/sheets/{sheetId}/presence': { responses: ok(obj({ sheetId: int, viewers: { type: 'array', items: ref('Viewer') } }, { required: ['sheetId', 'viewers'] })) },
  // test mode (docs/testing.md)
  'POST /sheetd/test/reset': { responses: ok(result()) },
  'POST /sheetd/test/seed': { request: json({ type: 'object' }), responses: ok(result({ type: 'object' })) },
  'GET /sheetd/test/snapshots': { responses: ok(page(ref('Snapshot'))) },
  'POST /sheetd/test/snapshots': { request: json(obj({ name: str })), responses: ok(result(ref('Snapshot'))) },
  'POST /sheetd/test/snapshots/{name}/restore': { responses: ok(result()) },
  'DELETE /sheetd/test/snapshots/{name}': { responses: ok(result()) },
  'GET /sheetd/test/clock': { responses: ok(ref('Clock')) },
  'PUT /sheetd/test/clock': { request: json({ type: 'object' }), responses: ok(result(ref('Clock'))) },
  'POST /sheetd/test/clock/advance': { request: json({ type: 'object' }), responses: ok(result(ref('Clock'))) },
  'GET /sheetd/test/faults': { responses: ok(page(ref('Fault'))) },
  'POST /sheetd/test/faults': { request: json(ref('Fault')), responses: ok(result(ref('Fault'))) },
  'DELETE /sheetd/test/faults': { responses: ok(result()) },
  'DELETE /sheetd/test/faults/{id}': { responses: ok(result()) },
  'GET /sheetd/test/journal': { responses: ok(testPage) },
  'DELETE /sheetd/test/journal': { responses: ok(result()) },
  'GET /sheetd/test/outbox': { responses: ok(testPage) },
  'GET /sheetd/test/webhookdeliveries': { responses: ok(testPage) },
};

/**
 * Operations whose answers the document does not describe yet: 'METHOD /path' -> why. The
 * conformance check (conformance.ts) lets their answers pass unchecked, and test/api/openapi.test.ts
 * reports them, so that a route added without its bodies is seen; an entry that has bodies, or
 * names no route, fails that test.
 */
export const UNDESCRIBED: Record<string, string> = {};
