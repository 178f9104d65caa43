/** The supported languages and their catalogues. */
import { de } from './messages/de.js';
import { en, type Catalogue, type MessageKey } from './messages/en.js';
import { es } from './messages/es.js';
import { fr } from './messages/fr.js';
import { ja } from './messages/ja.js';

export type { Catalogue, MessageKey };

/** Supported languages (ISO 639-1), the default first. */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const catalogues: Readonly<Record<Language, Catalogue>> = { en, fr, de, es, ja };

export function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

export function isMessageKey(value: string): value is MessageKey {
  return Object.prototype.hasOwnProperty.call(en, value);
}
