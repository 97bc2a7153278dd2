/** Data exposure by meaning: card data by field names, and the caller's own content told apart from another's secrets. */
import { describe, expect, it } from 'vitest';
import { findCardFields, findExposure } from '../../../src/engines/security/checks/data-exposure.js';

describe('card data by meaning', () => {
  it('finds a card number next to a CVC or expiry, whatever its checksum and nesting', () => {
    // 4111 1111 1111 1112 fails the Luhn check: a checksum alone would miss it.
    const profile = { user: { name: 'ann', payment: { card_number: '4111 1111 1111 1112', cvc: '123', expiry: '12/29' } } };
    expect(findExposure(JSON.stringify(profile))).toBeUndefined();
    expect(findCardFields(profile)).toMatch(/card data: "card_number" 4111\*+ next to "cvc"/);
    expect(findCardFields([{ creditCard: { number: 5500000000000005, exp_month: 4, exp_year: 2030 } }])).toMatch(/"number" 5500/);
  });

  it('does not take an order number or a phone number without card companions for card data', () => {
    expect(findCardFields({ order: { number: '4111111111111112', status: 'paid' } })).toBeUndefined();
    expect(findCardFields({ number: '12345', cvc: '123' })).toBeUndefined();
    expect(findCardFields({ card_number: '4111111111111112', cvc: null })).toBeUndefined();
  });
});

describe('own content', () => {
  it('a free-text field named like a secret, written by the caller, is not exposure; another value is', () => {
    const body = JSON.stringify({ id: 3, title: 'my note', secret: 'vigil-ab12cd-3 remember the milk' });
    expect(findExposure(body, (v) => v === 'vigil-ab12cd-3 remember the milk')).toBeUndefined();
    expect(findExposure(body)).toMatch(/secret or key/);
  });

  it("a password is never the caller's own content", () => {
    const body = JSON.stringify({ username: 'me', password: 'S3cret-pass' });
    expect(findExposure(body, () => true)).toMatch(/password field/);
  });

  it('an own card, written by the caller, is not exposure', () => {
    const card = { card_number: '4111111111111112', cvv: '999' };
    expect(findCardFields(card, (v) => v === '4111111111111112')).toBeUndefined();
  });
});
