/** German catalogue. */
import type { Catalogue } from './en.js';

export const de: Catalogue = {
  'validation.missing': 'Feld erforderlich',
  'validation.string_too_short': 'Die Zeichenkette muss mindestens {min_length} Zeichen lang sein',
  'validation.string_too_long': 'Die Zeichenkette darf höchstens {max_length} Zeichen lang sein',
  'validation.string_type': 'Die Eingabe muss eine gültige Zeichenkette sein',
  'validation.bool_parsing': 'Die Eingabe muss ein gültiger Wahrheitswert sein, die Eingabe ist nicht interpretierbar',
  'validation.int_parsing': 'Die Eingabe muss eine gültige ganze Zahl sein, die Zeichenkette ist keine ganze Zahl',
  'validation.float_parsing': 'Die Eingabe muss eine gültige Zahl sein, die Zeichenkette ist keine Zahl',
  'validation.greater_than_equal': 'Die Eingabe muss größer oder gleich {ge} sein',
  'validation.less_than_equal': 'Die Eingabe muss kleiner oder gleich {le} sein',
  'validation.greater_than': 'Die Eingabe muss größer als {gt} sein',
  'validation.less_than': 'Die Eingabe muss kleiner als {lt} sein',
  'validation.enum': 'Die Eingabe muss {expected} sein',
  'validation.string_pattern_mismatch': 'Die Zeichenkette muss dem Muster „{pattern}“ entsprechen',
  'validation.value_error': 'Ungültiger Wert, {reason}',
  'validation.invalid_page_token': 'Ungültiges Seiten-Token',

  'errors.bad_request': 'Ungültige Anfrage',
  'errors.not_authenticated': 'Nicht authentifiziert',
  'errors.forbidden': 'Zugriff verweigert',
  'errors.not_found': 'Nicht gefunden',
  'errors.method_not_allowed': 'Methode nicht erlaubt',
  'errors.not_acceptable': 'Nicht annehmbar',
  'errors.payload_too_large': 'Anfrage zu groß',
  'errors.unsupported_media_type': 'Nicht unterstützter Medientyp',
  'errors.too_many_requests': 'Zu viele Anfragen',
  'errors.internal': 'Interner Serverfehler',
  'errors.service_unavailable': 'Dienst nicht verfügbar',
  'errors.invalid_token': 'Ungültiges oder abgelaufenes Zugriffstoken',
  'errors.insufficient_scope': 'Das Zugriffstoken gewährt den Geltungsbereich {scope} nicht',
  'errors.project_not_found': 'Projekt nicht gefunden',
  'errors.organization_not_found': 'Organisation nicht gefunden',
  'errors.invalid_signature': 'Ungültige oder abgelaufene Signatur',

  'oauth.unsupported_grant_type': 'Nur der Grant-Typ client_credentials wird unterstützt',
  'oauth.invalid_client': 'Client-Authentifizierung fehlgeschlagen',
  'oauth.invalid_request': 'Ein erforderlicher Parameter fehlt oder die Anfrage ist fehlerhaft',
  'oauth.invalid_scope': 'Der angeforderte Geltungsbereich ist ungültig oder übersteigt den des Clients',

  'web.language_name': 'Deutsch',
};
