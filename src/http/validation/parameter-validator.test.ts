import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { compileParameterValidator, parseBoolean, parseInteger, UnsupportedParameterSchemaError } from './parameter-validator.js';
import { renderValidationIssues } from './render.js';

const query = compileParameterValidator(
  Type.Object({
    project_id: Type.String(),
    preview: Type.Optional(Type.Boolean({ default: false })),
    page_token: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
  }),
  'query',
);
const path = compileParameterValidator(Type.Object({ project_id: Type.String({ minLength: 36, maxLength: 36 }) }), 'path');

const detail = (issues: Parameters<typeof renderValidationIssues>[0]) => renderValidationIssues(issues, 'en').detail;

describe('parameter validator', () => {
  it('applies defaults and converts types', () => {
    assert.deepEqual(query({ project_id: 'All Projects' }), { value: { project_id: 'All Projects', preview: false, limit: 200 }, issues: [] });
    assert.deepEqual(query({ project_id: 'p', preview: 'YES', limit: ' 1_000 ' }).value, { project_id: 'p', preview: true, limit: 1000 });
  });

  it('is idempotent on converted values', () => {
    const { value } = query({ project_id: 'p', preview: 'off', limit: '7' });
    assert.deepEqual(query(value), { value, issues: [] });
  });

  it('missing', () => {
    assert.deepEqual(detail(query({}).issues), [{ type: 'missing', loc: ['query', 'project_id'], msg: 'Field required', input: null }]);
  });

  it('string_too_short and string_too_long count characters, not UTF-16 units', () => {
    assert.deepEqual(detail(path({ project_id: 'abc' }).issues), [
      { type: 'string_too_short', loc: ['path', 'project_id'], msg: 'String should have at least 36 characters', input: 'abc', ctx: { min_length: 36 } },
    ]);
    assert.deepEqual(detail(path({ project_id: 'x'.repeat(37) }).issues), [
      { type: 'string_too_long', loc: ['path', 'project_id'], msg: 'String should have at most 36 characters', input: 'x'.repeat(37), ctx: { max_length: 36 } },
    ]);
    assert.deepEqual(path({ project_id: '😀'.repeat(36) }).issues, []);
  });

  it('bool_parsing, int_parsing, greater_than_equal, less_than_equal, every failure listed in declaration order', () => {
    assert.deepEqual(detail(query({ limit: '1001', preview: 'maybe' }).issues), [
      { type: 'missing', loc: ['query', 'project_id'], msg: 'Field required', input: null },
      { type: 'bool_parsing', loc: ['query', 'preview'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' },
      { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', input: '1001', ctx: { le: 1000 } },
    ]);
    assert.deepEqual(detail(query({ project_id: 'p', limit: '0' }).issues), [
      { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
    ]);
    assert.deepEqual(detail(query({ project_id: 'p', limit: '1.5' }).issues), [
      { type: 'int_parsing', loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '1.5' },
    ]);
  });

  it('a repeated parameter counts with its last value', () => {
    assert.deepEqual(query({ project_id: ['a', 'b'], limit: ['5', 'x'] }).issues.map((i) => [i.type, i.input]), [['int_parsing', 'x']]);
  });

  it('reads header names case-insensitively', () => {
    const headers = compileParameterValidator(Type.Object({ Lang: Type.String({ minLength: 2 }) }), 'header');
    assert.deepEqual(headers({ lang: 'x' }).issues.map((i) => i.loc), [['header', 'Lang']]);
  });

  it('refuses schemas it cannot check faithfully', () => {
    assert.throws(() => compileParameterValidator(Type.Object({ ids: Type.Array(Type.String()) }), 'query'), UnsupportedParameterSchemaError);
  });
});

describe('pydantic lax parsing', () => {
  it('booleans: true 1 yes on t y / false 0 no off f n, any case, nothing else', () => {
    for (const w of ['true', 'TRUE', 'True', '1', 'yes', 'YeS', 'on', 't', 'T', 'y', 'Y']) assert.equal(parseBoolean(w), true, w);
    for (const w of ['false', 'FALSE', '0', 'no', 'NO', 'off', 'Off', 'f', 'F', 'n', 'N']) assert.equal(parseBoolean(w), false, w);
    for (const w of ['', ' true', 'true ', '2', 'yess', 'oui', 'null', '01']) assert.equal(parseBoolean(w), null, w);
  });

  it('integers', () => {
    const cases: Array<[string, number | null]> = [
      ['5', 5], [' 5 ', 5], ['+5', 5], ['-5', -5], ['007', 7], ['1_000', 1000], ['5.0', 5], ['5.', 5],
      ['', null], ['5.5', null], ['1e3', null], ['0x10', null], ['1__0', null], ['_1', null], ['five', null], ['5 5', null],
    ];
    for (const [text, expected] of cases) assert.equal(parseInteger(text), expected, JSON.stringify(text));
  });
});
