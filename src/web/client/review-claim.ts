// The review page (/review/orders/{id}): keeps the reviewer's claim alive while the page is open. Every
// data-renew-every-ms it POSTs {claim_id} to data-renew-url with the session's CSRF token in the
// X-CSRF-Token header; a refusal (the claim ended, the order moved) stops renewing and says so in the claim
// status line. A closed tab renews nothing, so its claim expires by itself (docs/review.md).

function keepClaim(): void {
  const root = document.querySelector<HTMLElement>('[data-review-root][data-claim-id]');
  if (!root) return;
  const every = Number(root.dataset.renewEveryMs) || 5 * 60 * 1000;
  const status = document.querySelector<HTMLElement>('[data-claim-status]');
  let timer: number | undefined;
  const renew = async (): Promise<void> => {
    try {
      const response = await fetch(root.dataset.renewUrl ?? '', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': root.dataset.csrf ?? '' },
        body: JSON.stringify({ claim_id: root.dataset.claimId }),
      });
      if (response.status === 409 || response.status === 403 || response.status === 404) {
        window.clearInterval(timer);
        if (status) status.textContent = status.dataset.lostMessage ?? '';
        root.setAttribute('data-claim-lost', 'true');
      }
    } catch {
      // Offline for a moment: the next tick tries again (the claim lasts three ticks).
    }
  };
  timer = window.setInterval(() => void renew(), every);
}

keepClaim();
