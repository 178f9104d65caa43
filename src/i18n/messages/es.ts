/** Spanish catalogue. */
import type { Catalogue } from './en.js';

export const es: Catalogue = {
  'validation.missing': 'Campo obligatorio',
  'validation.string_too_short': 'La cadena debe tener al menos {min_length} caracteres',
  'validation.string_too_long': 'La cadena debe tener como máximo {max_length} caracteres',
  'validation.string_type': 'La entrada debe ser una cadena válida',
  'validation.bool_parsing': 'La entrada debe ser un booleano válido, no se puede interpretar la entrada',
  'validation.int_parsing': 'La entrada debe ser un entero válido, no se puede analizar la cadena como un entero',
  'validation.float_parsing': 'La entrada debe ser un número válido, no se puede analizar la cadena como un número',
  'validation.greater_than_equal': 'La entrada debe ser mayor o igual que {ge}',
  'validation.less_than_equal': 'La entrada debe ser menor o igual que {le}',
  'validation.greater_than': 'La entrada debe ser mayor que {gt}',
  'validation.less_than': 'La entrada debe ser menor que {lt}',
  'validation.enum': 'La entrada debe ser {expected}',
  'validation.string_pattern_mismatch': "La cadena debe coincidir con el patrón '{pattern}'",
  'validation.value_error': 'Valor no válido, {reason}',
  'validation.invalid_page_token': 'Token de página no válido',

  'errors.bad_request': 'Solicitud incorrecta',
  'errors.not_authenticated': 'No autenticado',
  'errors.forbidden': 'Prohibido',
  'errors.not_found': 'No encontrado',
  'errors.method_not_allowed': 'Método no permitido',
  'errors.not_acceptable': 'No aceptable',
  'errors.payload_too_large': 'Solicitud demasiado grande',
  'errors.unsupported_media_type': 'Tipo de medio no admitido',
  'errors.too_many_requests': 'Demasiadas solicitudes',
  'errors.internal': 'Error interno del servidor',
  'errors.service_unavailable': 'Servicio no disponible',
  'errors.invalid_token': 'Token de acceso no válido o caducado',
  'errors.insufficient_scope': 'El token de acceso no concede el ámbito {scope}',
  'errors.project_not_found': 'Proyecto no encontrado',
  'errors.organization_not_found': 'Organización no encontrada',
  'errors.invalid_signature': 'Firma no válida o caducada',

  'oauth.unsupported_grant_type': 'Solo se admite el tipo de concesión client_credentials',
  'oauth.invalid_client': 'La autenticación del cliente ha fallado',
  'oauth.invalid_request': 'Falta un parámetro obligatorio o la solicitud está mal formada',
  'oauth.invalid_scope': 'El ámbito solicitado no es válido o supera el concedido al cliente',

  'web.language_name': 'Español',
};
