/** A refused single sign-on operation, with the status and code the API answers with. */
export class SsoError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 422,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SsoError';
  }
}
