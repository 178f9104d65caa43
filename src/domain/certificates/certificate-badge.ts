/**
 * The embeddable certificate badge (`/verify/{certificate_id}/badge.svg`): "Human Certified" in green or
 * "Revoked" in red, linking to the verify page. Static text, no script, no external reference; the only
 * data in it (the asset name in its title, the link) is escaped. It lives beside the certificates it
 * draws: the API's public certificate cache (src/http/) renders it, and nothing of the web pages is needed.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an SVG element body or a quoted attribute value. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/** Approximate width of a character of the 11 px sans-serif badge text. */
const CHAR_WIDTH = 6.6;
const LABEL = 'certdesk';

export interface BadgeInput {
  status: 'valid' | 'revoked';
  verifyUrl: string;
  assetName: string;
}

export function badgeText(status: BadgeInput['status']): string {
  return status === 'valid' ? 'Human Certified' : 'Revoked';
}

export function renderBadge({ status, verifyUrl, assetName }: BadgeInput): string {
  const text = badgeText(status);
  const left = Math.round(LABEL.length * CHAR_WIDTH + 14);
  const right = Math.round(text.length * CHAR_WIDTH + 14);
  const width = left + right;
  const colour = status === 'valid' ? '#116329' : '#a40e26';
  const title = `${text}: ${assetName}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" viewBox="0 0 ${width} 20" role="img" aria-label="${escapeXml(title)}">
<title>${escapeXml(title)}</title>
<a href="${escapeXml(verifyUrl)}" target="_blank">
<rect width="${width}" height="20" rx="3" fill="#24292f"/>
<rect x="${left}" width="${right}" height="20" rx="3" fill="${colour}"/>
<rect x="${left}" width="4" height="20" fill="${colour}"/>
<g fill="#ffffff" font-family="Verdana, DejaVu Sans, sans-serif" font-size="11" text-anchor="middle">
<text x="${left / 2}" y="14">${LABEL}</text>
<text x="${left + right / 2}" y="14">${text}</text>
</g>
</a>
</svg>
`;
}
