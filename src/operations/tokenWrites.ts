// What the creator-only token writes share: their dependencies and the at-least-one-field rule.
import type { ChainClients } from '../chain/clients.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { Deployments } from '../launchpad/deployments.ts';
import type { MetadataDocuments } from '../pinning/documents.ts';
import type { PinStore } from '../pinning/pinStore.ts';
import type { Settings } from '../settings.ts';

export interface TokenWriteDeps {
  settings: Settings;
  chains: ChainClients;
  clock: Clock;
  deployments: Deployments;
  pins: PinStore;
  documents: MetadataDocuments;
}

export const atLeastOne = (what: string) =>
  new ApiError('invalid_parameter', `Give at least one of ${what}`, {
    invalid_parameters: [{ name: 'body', reason: 'required', detail: `at least one of ${what}` }],
  });
