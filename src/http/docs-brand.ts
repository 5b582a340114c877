/**
 * qrail's mark for the API reference page at /docs (its favicon and the top bar's logo): a qubit
 * on a rail, and the name. One small inline SVG, served by @fastify/swagger-ui's theme.
 */
export const QRAIL_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="132" height="40" viewBox="0 0 132 40" role="img" aria-label="qrail">
<title>qrail</title>
<rect x="2" y="29" width="36" height="3" rx="1.5" fill="#4a5568"/>
<circle cx="20" cy="16" r="11" fill="none" stroke="#2b6cb0" stroke-width="3"/>
<ellipse cx="20" cy="16" rx="11" ry="4" fill="none" stroke="#2b6cb0" stroke-width="1.5"/>
<circle cx="26" cy="9" r="3" fill="#dd6b20"/>
<text x="46" y="28" font-family="system-ui, sans-serif" font-size="24" font-weight="700" fill="#ffffff">qrail</text>
</svg>
`;

/** The reference page's theme and logo options for @fastify/swagger-ui. */
export const DOCS_THEME = {
  title: 'qrail API reference',
  favicon: [{ filename: 'qrail.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: QRAIL_LOGO_SVG }],
};

export const DOCS_LOGO = { type: 'image/svg+xml', content: Buffer.from(QRAIL_LOGO_SVG), href: '/docs', target: '_self' as const };
