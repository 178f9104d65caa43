/** Renders a catalogue message in a language, filling `{name}` placeholders. */
import { catalogues, DEFAULT_LANGUAGE, type Language, type MessageKey } from './catalogue.js';

export type MessageVars = Readonly<Record<string, string | number | boolean>>;

/**
 * The message `key` in `lang` with its placeholders replaced by `vars` (values are inserted as given:
 * data is never translated). A placeholder without a value is left visible rather than dropped.
 *
 * @example
 * translate('fr', 'validation.greater_than_equal', { ge: 1 }) // "La valeur doit être supérieure ou égale à 1"
 */
export function translate(lang: Language, key: MessageKey, vars: MessageVars = {}): string {
  const template = catalogues[lang][key] ?? catalogues[DEFAULT_LANGUAGE][key];
  return template.replace(/\{([a-z_][a-z0-9_]*)\}/gi, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}
