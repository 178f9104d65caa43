import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { catalogues, LANGUAGES, negotiateLanguage, parseLanguageList, translate } from './index.js';

const placeholders = (text: string) => [...text.matchAll(/\{([a-z_]+)\}/gi)].map((m) => m[1]).sort();

describe('catalogues', () => {
  it('every language has exactly the English keys, each non-empty with the same placeholders', () => {
    const keys = Object.keys(catalogues.en).sort();
    for (const lang of LANGUAGES) {
      assert.deepEqual(Object.keys(catalogues[lang]).sort(), keys, lang);
      for (const key of keys) {
        const text = (catalogues[lang] as Record<string, string>)[key]!;
        assert.ok(text.trim().length > 0, `${lang} ${key}`);
        assert.deepEqual(placeholders(text), placeholders((catalogues.en as Record<string, string>)[key]!), `${lang} ${key}`);
      }
    }
  });

  it('keys are grouped by area', () => {
    for (const key of Object.keys(catalogues.en)) assert.match(key, /^(validation|errors|oauth|web)\.[a-z_.]+$/);
  });
});

describe('translate', () => {
  it('fills placeholders with data values as given', () => {
    assert.equal(translate('en', 'validation.string_too_short', { min_length: 36 }), 'String should have at least 36 characters');
    assert.equal(translate('fr', 'validation.greater_than_equal', { ge: 1 }), 'La valeur doit être supérieure ou égale à 1');
    assert.equal(translate('ja', 'errors.insufficient_scope', { scope: 'enterprise-api-access/read' }), 'アクセストークンにスコープ enterprise-api-access/read がありません');
  });

  it('leaves a placeholder without a value visible', () => {
    assert.equal(translate('en', 'validation.less_than_equal'), 'Input should be less than or equal to {le}');
  });
});

describe('negotiateLanguage', () => {
  const cases: Array<[Record<string, string | undefined>, string]> = [
    [{}, 'en'],
    [{ lang: 'fr' }, 'fr'],
    [{ lang: 'FR' }, 'fr'],
    [{ lang: 'fr-CA' }, 'fr'],
    [{ lang: 'ja_JP' }, 'ja'],
    [{ lang: 'xx' }, 'en'],
    [{ lang: 'xx', 'accept-language': 'es' }, 'es'],
    [{ lang: 'de', 'accept-language': 'fr' }, 'de'],
    [{ 'accept-language': 'de-DE,de;q=0.9' }, 'de'],
    [{ 'accept-language': 'xx-YY, fr;q=0.5, es;q=0.8' }, 'es'],
    [{ 'accept-language': 'fr;q=0, de;q=0.1' }, 'de'],
    [{ 'accept-language': 'zz, *;q=0.5' }, 'en'],
    [{ 'accept-language': ';;;,q=,' }, 'en'],
  ];
  for (const [headers, expected] of cases) {
    it(`${JSON.stringify(headers)} → ${expected}`, () => assert.equal(negotiateLanguage(headers), expected));
  }

  it('orders by q-value, keeping the listed order for equal weights', () => {
    assert.deepEqual(parseLanguageList('a;q=0.5, b, c;q=0.5, d;q=1'), ['b', 'd', 'a', 'c']);
  });
});
