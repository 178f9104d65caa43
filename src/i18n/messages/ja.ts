/** Japanese catalogue. */
import type { Catalogue } from './en.js';

export const ja: Catalogue = {
  'validation.missing': '必須項目です',
  'validation.string_too_short': '文字列は{min_length}文字以上である必要があります',
  'validation.string_too_long': '文字列は{max_length}文字以下である必要があります',
  'validation.string_type': '有効な文字列を入力してください',
  'validation.bool_parsing': '有効な真偽値を入力してください。入力を解釈できません',
  'validation.int_parsing': '有効な整数を入力してください。文字列を整数として解析できません',
  'validation.float_parsing': '有効な数値を入力してください。文字列を数値として解析できません',
  'validation.greater_than_equal': '{ge}以上の値を入力してください',
  'validation.less_than_equal': '{le}以下の値を入力してください',
  'validation.greater_than': '{gt}より大きい値を入力してください',
  'validation.less_than': '{lt}より小さい値を入力してください',
  'validation.enum': '{expected}のいずれかを入力してください',
  'validation.string_pattern_mismatch': '文字列はパターン「{pattern}」に一致する必要があります',
  'validation.value_error': '値が不正です。{reason}',
  'validation.invalid_page_token': 'ページトークンが不正です',

  'errors.bad_request': '不正なリクエストです',
  'errors.not_authenticated': '認証されていません',
  'errors.forbidden': 'アクセスが禁止されています',
  'errors.not_found': '見つかりません',
  'errors.method_not_allowed': '許可されていないメソッドです',
  'errors.not_acceptable': '受け入れられません',
  'errors.payload_too_large': 'リクエストが大きすぎます',
  'errors.unsupported_media_type': 'サポートされていないメディアタイプです',
  'errors.too_many_requests': 'リクエストが多すぎます',
  'errors.internal': 'サーバー内部エラー',
  'errors.service_unavailable': 'サービスを利用できません',
  'errors.invalid_token': 'アクセストークンが無効か期限切れです',
  'errors.insufficient_scope': 'アクセストークンにスコープ {scope} がありません',
  'errors.project_not_found': 'プロジェクトが見つかりません',
  'errors.organization_not_found': '組織が見つかりません',
  'errors.invalid_signature': '署名が無効か期限切れです',

  'oauth.unsupported_grant_type': 'サポートされているグラントタイプは client_credentials のみです',
  'oauth.invalid_client': 'クライアント認証に失敗しました',
  'oauth.invalid_request': '必須パラメーターが不足しているか、リクエストの形式が不正です',
  'oauth.invalid_scope': '要求されたスコープが無効か、クライアントに許可された範囲を超えています',

  'web.language_name': '日本語',
};
