/**
 * The typed failure of the built-in provider's token and revocation
 * endpoints: an RFC 6749 §5.2 error code, its description and the status
 * (401 when client authentication failed).
 */
export class OAuthFailure extends Error {
  constructor(readonly error: string, description: string, readonly status: 400 | 401 = 400) {
    super(description);
  }
}
