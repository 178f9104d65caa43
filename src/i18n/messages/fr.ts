/** French catalogue. */
import type { Catalogue } from './en.js';

export const fr: Catalogue = {
  'validation.missing': 'Champ obligatoire',
  'validation.string_too_short': 'La chaîne doit contenir au moins {min_length} caractères',
  'validation.string_too_long': 'La chaîne doit contenir au plus {max_length} caractères',
  'validation.string_type': 'La valeur doit être une chaîne valide',
  'validation.bool_parsing': 'La valeur doit être un booléen valide, impossible d’interpréter la valeur',
  'validation.int_parsing': 'La valeur doit être un entier valide, impossible d’analyser la chaîne comme un entier',
  'validation.float_parsing': 'La valeur doit être un nombre valide, impossible d’analyser la chaîne comme un nombre',
  'validation.greater_than_equal': 'La valeur doit être supérieure ou égale à {ge}',
  'validation.less_than_equal': 'La valeur doit être inférieure ou égale à {le}',
  'validation.greater_than': 'La valeur doit être supérieure à {gt}',
  'validation.less_than': 'La valeur doit être inférieure à {lt}',
  'validation.enum': 'La valeur doit être {expected}',
  'validation.string_pattern_mismatch': 'La chaîne doit correspondre au motif « {pattern} »',
  'validation.value_error': 'Valeur invalide, {reason}',
  'validation.invalid_page_token': 'Jeton de page invalide',

  'errors.bad_request': 'Requête invalide',
  'errors.not_authenticated': 'Non authentifié',
  'errors.forbidden': 'Accès interdit',
  'errors.not_found': 'Introuvable',
  'errors.method_not_allowed': 'Méthode non autorisée',
  'errors.not_acceptable': 'Non acceptable',
  'errors.payload_too_large': 'Corps de requête trop volumineux',
  'errors.unsupported_media_type': 'Type de média non pris en charge',
  'errors.too_many_requests': 'Trop de requêtes',
  'errors.internal': 'Erreur interne du serveur',
  'errors.service_unavailable': 'Service indisponible',
  'errors.invalid_token': 'Jeton d’accès invalide ou expiré',
  'errors.insufficient_scope': 'Le jeton d’accès n’accorde pas la portée {scope}',
  'errors.project_not_found': 'Projet introuvable',
  'errors.organization_not_found': 'Organisation introuvable',
  'errors.invalid_signature': 'Signature invalide ou expirée',

  'oauth.unsupported_grant_type': 'Seul le type d’autorisation client_credentials est pris en charge',
  'oauth.invalid_client': 'Échec de l’authentification du client',
  'oauth.invalid_request': 'Un paramètre obligatoire manque ou la requête est mal formée',
  'oauth.invalid_scope': 'La portée demandée est invalide ou dépasse celle accordée au client',

  'web.language_name': 'Français',
};
