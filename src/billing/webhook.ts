import Stripe from 'stripe';
import type { ProviderEvent } from './events.js';
import { isProviderId, isUnixSeconds, type Obj } from './snapshot.js';

/** Why a webhook request is refused (400): a signature problem, or a signed body that is not an event. */
export class WebhookRefusal extends Error {
  constructor(
    readonly code: 'INVALID_SIGNATURE' | 'INVALID_REQUEST',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookRefusal';
  }
}

/**
 * The SDK's own crypto provider, noting the content it was asked to sign. The SDK signs
 * `<timestamp>.<payload>` with the timestamp it parsed from the header and then checks the age of that
 * same timestamp, so this is how Vigil learns exactly which timestamp the SDK verified without parsing
 * the header a second time (two parsers can disagree, e.g. on a header with two `t=`).
 */
class SignedContentRecorder extends Stripe.CryptoProvider {
  private readonly inner = Stripe.createNodeCryptoProvider();
  signed: string | undefined;

  override computeHMACSignature(payload: string, secret: string): string {
    this.signed = payload;
    return this.inner.computeHMACSignature(payload, secret);
  }

  override computeHMACSignatureAsync(payload: string, secret: string): Promise<string> {
    this.signed = payload;
    return this.inner.computeHMACSignatureAsync(payload, secret);
  }

  override computeSHA256Async(data: Uint8Array): Promise<Uint8Array> {
    return this.inner.computeSHA256Async(data);
  }
}

const EVENT_TYPE = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Verifies the signature header over the raw body with the SDK's `constructEvent` (several v1 values
 * accepted; a timestamp older than `toleranceSeconds` refused) and then refuses a verified timestamp more
 * than `toleranceSeconds` in the future, which the SDK accepts. Returns the event once its envelope is
 * one Vigil can record (id, type, created, data.object); throws WebhookRefusal otherwise.
 */
export function verifyWebhook(sdk: Stripe, raw: Buffer, header: string, secret: string, toleranceSeconds: number, nowMs: number): ProviderEvent {
  const recorder = new SignedContentRecorder();
  let parsed: unknown;
  try {
    parsed = sdk.webhooks.constructEvent(raw, header, secret, toleranceSeconds, recorder, nowMs);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new WebhookRefusal('INVALID_SIGNATURE', `Signature verification failed: ${error.message.split('\n')[0]}`);
    }
    // The signature matched (the SDK computed it) but the body is not JSON, or not a webhook event.
    if (recorder.signed !== undefined) throw new WebhookRefusal('INVALID_REQUEST', 'The signed body is not a provider event');
    throw error;
  }
  const timestamp = verifiedTimestamp(recorder.signed, raw);
  if (!(timestamp <= Math.floor(nowMs / 1000) + toleranceSeconds)) {
    throw new WebhookRefusal('INVALID_SIGNATURE', 'Signature timestamp is too far in the future');
  }
  return eventEnvelope(parsed);
}

/** The timestamp in the content the SDK signed: `<timestamp>.<payload decoded as the SDK decodes it>`. */
function verifiedTimestamp(signed: string | undefined, raw: Buffer): number {
  const suffix = `.${new TextDecoder('utf8').decode(raw)}`;
  if (signed === undefined || !signed.endsWith(suffix)) return Number.NaN;
  return Number(signed.slice(0, signed.length - suffix.length));
}

/** What an event must carry to be recorded and routed; anything else is not an event (400 INVALID_REQUEST). */
function eventEnvelope(value: unknown): ProviderEvent {
  const refuse = (why: string) => new WebhookRefusal('INVALID_REQUEST', `The signed body is not a provider event: ${why}`);
  if (!isObject(value)) throw refuse('not a JSON object');
  if (!isProviderId(value.id)) throw refuse('id missing or not a provider id (letters, digits, _ or -, at most 255)');
  if (typeof value.type !== 'string' || !EVENT_TYPE.test(value.type)) throw refuse('type missing or not an event type');
  if (!Number.isSafeInteger(value.created) || !isUnixSeconds(value.created)) throw refuse('created is not a unix time in seconds');
  if (!isObject(value.data) || !isObject(value.data.object)) throw refuse('data.object missing or not an object');
  return { id: value.id, type: value.type, created: value.created, data: { object: value.data.object } };
}

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
