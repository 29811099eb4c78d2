// launchpad-gateway as a library: the engine behind the HTTP API, for bots and backends that prepare plans
// in-process with their own RPC endpoints. Each operation is a plain `(deps, input) → result` function;
// the building blocks below make its deps. The HTTP server is `buildServer`; the typed HTTP client is
// `launchpad-gateway/client`.

// Operations: transaction plans.
export { type LaunchDeps, prepareLaunch, type PrepareLaunchInput } from './operations/prepareLaunch.ts';
export { quoteSwap, type QuoteSwapInput, type SwapDeps } from './operations/quoteSwap.ts';
export { prepareSwap, type PrepareSwapInput } from './operations/prepareSwap.ts';
export { type ClaimDeps } from './operations/claimPlan.ts';
export { prepareFeeClaims, type PrepareFeeClaimsInput } from './operations/prepareFeeClaims.ts';
export { prepareVestingClaims, type PrepareVestingClaimsInput } from './operations/prepareVestingClaims.ts';
export { type TokenWriteDeps } from './operations/tokenWrites.ts';
export {
  prepareOnchainMetadata,
  type PrepareOnchainMetadataInput,
} from './operations/prepareOnchainMetadata.ts';
export {
  prepareMetadataDocument,
  type PrepareMetadataDocumentInput,
} from './operations/prepareMetadataDocument.ts';
export { prepareAnnouncement, type PrepareAnnouncementInput } from './operations/prepareAnnouncement.ts';

// Operations: configuration, transaction status and the index queries.
export { type ConfigDeps, getConfig, type GetConfigInput } from './operations/getConfig.ts';
export {
  getTransactionStatus,
  type GetTransactionStatusInput,
  type TransactionStatusDeps,
} from './operations/getTransactionStatus.ts';
export {
  getHolders,
  getToken,
  type IndexedPage,
  listAnnouncements,
  listCreatorTokens,
  listTokens,
  listTrades,
  searchTokens,
  type TokenReadDeps,
} from './operations/tokenQueries.ts';
export {
  getWalletSummary,
  listFeePositions,
  listWalletActivity,
  type WalletReadDeps,
} from './operations/walletQueries.ts';

// Building blocks of deps.
export { ChainClients } from './chain/clients.ts';
export { type Clock, systemClock } from './clock.ts';
export { Deployments } from './launchpad/deployments.ts';
export { SaltMiner } from './launchpad/saltMiner.ts';
export { IpfsPinStore, type PinStore } from './pinning/pinStore.ts';
export { type IpfsNode, startIpfsNode } from './pinning/ipfsNode.ts';
export { MetadataDocuments } from './pinning/documents.ts';
export { openDatabase } from './store/db.ts';
export { loadGatewaySecret, QuoteSigner } from './swaps/quoteId.ts';
export { loadSettings, type Settings } from './settings.ts';
export { ApiError, ERRORS, type ErrorCode } from './errors.ts';
export { buildServer } from './server.ts';
