// The POST /launches/prepare body, field by field as REFERENCE §3.2 transcribes the production
// LaunchPrepareRequest, and the checks a schema cannot express (non-zero creator, image bytes, tax).
import { type Static, Type } from '@sinclair/typebox';
import { zeroAddress } from 'viem';
import { ApiError } from '../errors.ts';
import { Address, ChainIdSchema, StringEnum, Uint } from '../inputRules.ts';

const PERCENT = Type.String({ pattern: '^(0|[1-9][0-9]{0,7}|100000000)$', maxLength: 9 });

export const TaxRequest = Type.Object(
  {
    format: Type.Literal('inclusive'),
    buy_tax_rate: PERCENT,
    sell_tax_rate: PERCENT,
    creator_allocation_share: PERCENT,
    burn_allocation_share: PERCENT,
    dividend_allocation_share: PERCENT,
    integrator_allocation_share: PERCENT,
    minimum_dividend_holding_raw: Uint(),
    creator_fee_recipient: Address(),
    integrator_fee_recipient: Type.Optional(Address()),
    anti_snipe_enabled: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

export const LaunchPrepareBody = Type.Object(
  {
    chain_id: ChainIdSchema(),
    creator: Address({ description: 'A non-zero address: the wallet that sends the launch.' }),
    market: StringEnum(['standard', 'rwa']),
    quote_address: Address({ description: 'An active quote of GET /config; the zero address is native.' }),
    launch_product: Type.Optional(StringEnum(['non-tax', 'tax'], { default: 'non-tax' })),
    tax: Type.Optional(TaxRequest),
    token: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 50 }),
        symbol: Type.String({ minLength: 1, maxLength: 11, pattern: '^\\S+$' }),
        image_base64: Type.String({
          minLength: 1,
          maxLength: 3_000_000,
          pattern: '^[A-Za-z0-9+/]+={0,2}$',
          description: 'The image, base64; decoded at most 2 MB, and its bytes must match image_type.',
        }),
        image_type: StringEnum(IMAGE_TYPES),
        description: Type.Optional(Type.String({ maxLength: 2000 })),
        // The link rules of the production request schema (REFERENCE §3.2); "" clears a field.
        website: Type.Optional(
          Type.String({ maxLength: 2048, pattern: '^(|https?://[^/]*\\.[^/]+(?:/.*)?)$' }),
        ),
        x: Type.Optional(Type.String({ maxLength: 2048, pattern: '^(|https?://(?:www\\.)?x\\.com/.+)$' })),
        telegram: Type.Optional(
          Type.String({ maxLength: 2048, pattern: '^(|https?://(?:www\\.)?(?:t\\.me|telegram\\.me)/.+)$' }),
        ),
        editable_metadata: Type.Optional(Type.Boolean()),
        extra_metadata: Type.Optional(
          Type.Array(
            Type.Object(
              { key: Type.String({ minLength: 1, maxLength: 64 }), value: Type.String({ maxLength: 512 }) },
              { additionalProperties: false },
            ),
            { maxItems: 16 },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type LaunchPrepareBody = Static<typeof LaunchPrepareBody>;

const invalid = (name: string, detail: string) =>
  new ApiError('invalid_parameter', detail, { invalid_parameters: [{ name, reason: 'format', detail }] });

const MAGIC: Record<(typeof IMAGE_TYPES)[number], (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
};

/** Which supported image type the bytes are, by their magic bytes. */
export function sniffImageType(bytes: Buffer): (typeof IMAGE_TYPES)[number] | undefined {
  return IMAGE_TYPES.find((t) => MAGIC[t](bytes));
}

/** The decoded image, checked against its declared type and the size limit. */
export function decodeImage(token: LaunchPrepareBody['token']): Buffer {
  if (token.image_base64.length % 4 !== 0)
    throw invalid('token.image_base64', 'token.image_base64 is not valid base64');
  const bytes = Buffer.from(token.image_base64, 'base64');
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw invalid(
      'token.image_base64',
      `token.image_base64 decodes to ${bytes.length} bytes; the limit is ${MAX_IMAGE_BYTES}`,
    );
  }
  if (!MAGIC[token.image_type](bytes)) {
    const actual = sniffImageType(bytes);
    throw invalid(
      'token.image_base64',
      `token.image_base64 is not ${token.image_type}${actual ? ` (its bytes are ${actual})` : ''}`,
    );
  }
  return bytes;
}

/** Cross-field rules: a non-zero creator, and tax exactly when the product is tax. */
export function checkLaunchBody(body: LaunchPrepareBody): void {
  if (body.creator.toLowerCase() === zeroAddress)
    throw invalid('creator', 'creator must not be the zero address');
  const product = body.launch_product ?? 'non-tax';
  if (product === 'tax' && !body.tax) throw invalid('tax', 'tax is required when launch_product is tax');
  if (body.tax && body.tax.creator_fee_recipient.toLowerCase() === zeroAddress) {
    throw invalid('tax.creator_fee_recipient', 'tax.creator_fee_recipient must not be the zero address');
  }
  if (product !== 'tax' && body.tax) {
    throw new ApiError('incompatible_parameters', 'tax is only allowed with launch_product=tax', {
      invalid_parameters: [{ name: 'tax', reason: 'conflict', detail: 'tax needs launch_product=tax' }],
    });
  }
}
