// certdesk review page: keeps the reviewer's claim alive while the page is open. Every
// data-renew-every-ms it POSTs {claim_id} to data-renew-url with the session's CSRF token in the
// X-CSRF-Token header; a refusal (the claim ended, the order moved) stops renewing and says so in the
// claim status line. A closed tab renews nothing, so its claim expires by itself.
'use strict';

(function keepClaim() {
  const root = document.querySelector('[data-review-root][data-claim-id]');
  if (!root) return;
  const every = Number(root.getAttribute('data-renew-every-ms')) || 5 * 60 * 1000;
  const status = document.querySelector('[data-claim-status]');
  let timer = null;
  async function renew() {
    try {
      const response = await fetch(root.getAttribute('data-renew-url'), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': root.getAttribute('data-csrf') },
        body: JSON.stringify({ claim_id: root.getAttribute('data-claim-id') }),
      });
      if (response.status === 409 || response.status === 403 || response.status === 404) {
        clearInterval(timer);
        if (status) status.textContent = status.getAttribute('data-lost-message') || '';
        root.setAttribute('data-claim-lost', 'true');
      }
    } catch {
      // Offline for a moment: the next tick tries again (the claim lasts three ticks).
    }
  }
  timer = setInterval(renew, every);
})();
