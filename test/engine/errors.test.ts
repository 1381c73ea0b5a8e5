import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidInput, LimitExceeded, NotFound, NotPermitted, isEngineError } from '../../src/engine/errors.ts';
import { apiErrorOf, fromEngineError } from '../../src/services/platform/errors.ts';
import { apiError, CATALOGUE } from '../../src/errors.ts';
import { assertRowsPerRequest } from '../../src/engine/limits.ts';

test('an engine error carries its code and message arguments as data', () => {
  const e = new InvalidInput(1031, 'x', 'cell.value');
  assert.ok(isEngineError(e));
  assert.equal(e.kind, 'invalid');
  assert.equal(e.errorCode, 1031);
  assert.deepEqual(e.args, ['x', 'cell.value']);
});

test('the mapping gives the catalogued status and message, as apiError would', () => {
  for (const e of [new InvalidInput(1031, 'x', 'cell.value'), new LimitExceeded(1061, 'rows'), new NotFound(1006), new NotPermitted(1039, 42)]) {
    const mapped = fromEngineError(e);
    const direct = apiError(e.errorCode, ...e.args);
    assert.equal(mapped.errorCode, e.errorCode);
    assert.equal(mapped.statusCode, CATALOGUE[e.errorCode]![0]);
    assert.equal(mapped.message, direct.message);
  }
  assert.equal(fromEngineError(new NotPermitted(1039, 42)).message, 'Cannot edit locked column 42.');
});

test('apiErrorOf: an ApiError as it is, an engine error mapped, anything else undefined', () => {
  const api = apiError(1006);
  assert.equal(apiErrorOf(api), api);
  assert.equal(apiErrorOf(new Error('boom')), undefined);
  assert.equal(apiErrorOf(undefined), undefined);
  let thrown: unknown;
  try { assertRowsPerRequest(501); } catch (e) { thrown = e; }
  assert.ok(thrown instanceof LimitExceeded);
  const mapped = apiErrorOf(thrown);
  assert.equal(mapped?.statusCode, 400);
  assert.equal(mapped?.message, 'Max count exceeded for field rows.');
});
