/**
 * The OAuth 2.0 client-credentials access token: fetched on first use, cached, refreshed a margin before
 * it expires, and fetched by one request at a time however many calls need it concurrently.
 */
export interface TokenFetcher {
  (): Promise<{ accessToken: string; expiresInSeconds: number }>;
}

export class TokenCache {
  private token: { value: string; expiresAt: number } | null = null;
  private inflight: Promise<string> | null = null;

  constructor(
    private readonly fetchToken: TokenFetcher,
    private readonly now: () => number,
    /** Refresh this many milliseconds before expiry (default 60 s, at most half the lifetime). */
    private readonly marginMs = 60_000,
  ) {}

  /** A valid access token: the cached one, or a new one (one request shared by every caller). */
  async get(): Promise<string> {
    if (this.token && this.now() < this.token.expiresAt) return this.token.value;
    if (!this.inflight) {
      this.inflight = (async () => {
        try {
          const issuedAt = this.now();
          const { accessToken, expiresInSeconds } = await this.fetchToken();
          const lifetime = expiresInSeconds * 1000;
          this.token = { value: accessToken, expiresAt: issuedAt + lifetime - Math.min(this.marginMs, lifetime / 2) };
          return accessToken;
        } finally {
          this.inflight = null;
        }
      })();
    }
    return this.inflight;
  }

  /** Forgets `value` (the server refused it), so the next `get()` fetches a new token. */
  invalidate(value: string): void {
    if (this.token?.value === value) this.token = null;
  }
}
