/** Languages of human-readable messages: catalogues, negotiation and rendering. */
export { catalogues, DEFAULT_LANGUAGE, isLanguage, isMessageKey, LANGUAGES, type Catalogue, type Language, type MessageKey } from './catalogue.js';
export { matchLanguage, negotiateLanguage, parseLanguageList, type LanguageHeaders } from './negotiate.js';
export { translate, type MessageVars } from './translate.js';
