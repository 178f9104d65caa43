/**
 * Picks the language of human-readable messages: the `lang` header first (the interface's own
 * parameter), else `Accept-Language` (RFC 9110 12.5.4, q-values honoured), else English. A tag matches a
 * supported language by its primary subtag, so `fr-CA` gives `fr`. A `lang` header naming no supported
 * language is ignored, so `Accept-Language` still gets its say before the English default.
 */
import { DEFAULT_LANGUAGE, isLanguage, type Language } from './catalogue.js';

type HeaderValue = string | string[] | undefined;

/** Headers as Node and Fastify give them (lower-case names). */
export type LanguageHeaders = Readonly<Record<string, HeaderValue>>;

function headerText(value: HeaderValue): string {
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

interface WeightedTag {
  tag: string;
  q: number;
  index: number;
}

/** Parses an Accept-Language-style list into tags by decreasing preference (stable for equal q). */
export function parseLanguageList(value: string): string[] {
  const items: WeightedTag[] = [];
  value.split(',').forEach((part, index) => {
    const [rawTag, ...params] = part.split(';');
    const tag = rawTag?.trim().toLowerCase() ?? '';
    if (tag === '') return;
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (m) q = Number(m[1]);
    }
    if (!Number.isFinite(q) || q <= 0 || q > 1) return; // q=0 means "not acceptable"
    items.push({ tag, q, index });
  });
  return items.sort((a, b) => b.q - a.q || a.index - b.index).map((i) => i.tag);
}

/** The first supported language of a preference list, or null. `*` accepts the default. */
export function matchLanguage(tags: readonly string[]): Language | null {
  for (const tag of tags) {
    if (tag === '*') return DEFAULT_LANGUAGE;
    const primary = tag.split(/[-_]/)[0] ?? '';
    if (isLanguage(primary)) return primary;
  }
  return null;
}

/**
 * @example
 * negotiateLanguage({ 'accept-language': 'de-DE,de;q=0.9' }) // 'de'
 * negotiateLanguage({ lang: 'fr', 'accept-language': 'de' })  // 'fr'
 * negotiateLanguage({ lang: 'xx' })                           // 'en'
 */
export function negotiateLanguage(headers: LanguageHeaders): Language {
  return (
    matchLanguage(parseLanguageList(headerText(headers['lang']))) ??
    matchLanguage(parseLanguageList(headerText(headers['accept-language']))) ??
    DEFAULT_LANGUAGE
  );
}
