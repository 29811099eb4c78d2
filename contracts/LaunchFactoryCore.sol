// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {
    Band,
    CreatorRights,
    FeeComponent,
    FeeKind,
    IERC20Minimal,
    QuoteConfig,
    QuoteRegistration,
    SeedBand
} from "./LaunchTypes.sol";
import {LaunchHook} from "./LaunchHook.sol";
import {LaunchHookBase} from "./LaunchHookBase.sol";
import {LaunchToken} from "./LaunchToken.sol";
import {LaunchTokenDeployer} from "./LaunchTokenDeployer.sol";
import {AnnouncementRegistry} from "./AnnouncementRegistry.sol";

interface ICreatorRightsReceiver {
    function onCreatorRightsReceived(address operator, address from, address token, bytes calldata data)
        external
        returns (bytes4);
}

/// @title LaunchFactoryCore
/// @notice What every launch factory shares: governance of the launch configuration (each change bumps
/// `configVersion`), the quote registry, token creation at a CREATE2 address ending in 0x01 from a
/// creator-scoped salt, pool initialisation and seeding through the hook, creator rights and metadata.
abstract contract LaunchFactoryCore {
    using PoolIdLibrary for PoolKey;

    uint8 public constant TOKEN_ADDRESS_SUFFIX = 0x01;
    uint256 public constant MIN_LAUNCH_SUPPLY = 1e6 * 1e18;
    uint256 public constant MAX_LAUNCH_SUPPLY = 1e12 * 1e18;
    uint256 public constant MAX_BANDS = 10;
    uint256 public constant MAX_QUOTE_BATCH = 64;

    IPoolManager public immutable poolManager;
    LaunchHookBase public immutable hook;
    address public immutable feeEscrow;
    LaunchTokenDeployer public immutable tokenDeployer;

    address public owner;
    address public creatorAdmin;
    uint64 public configVersion;
    bool public launchCreationEnabled;
    uint256 public launchSupply;
    int24 public tickSpacing;
    address public platformFeeRecipient;
    uint16 public baseFeeBps;
    uint16 public antiSnipeStartTotalBps;
    uint32 public antiSnipeWindowSeconds;
    address public announcementRegistry;

    FeeComponent[] private _feeComponents;
    Band[] private _bandTemplate;
    mapping(address => QuoteConfig) public quoteConfig;
    mapping(address => uint64) public quoteRevision;
    mapping(bytes32 => bool) public isLaunchSaltUsed;
    mapping(address => CreatorRights) private _rights;

    event Launched(
        address indexed token,
        PoolId indexed poolId,
        address indexed originalCreator,
        address quoteToken,
        uint256 launchSupply,
        int24 tickSpacing
    );
    event CreatorRightsTransferProposed(address indexed token, address indexed currentCreator, address indexed pendingCreator);
    event CreatorRightsTransferCancelled(address indexed token, address indexed currentCreator, address indexed pendingCreator);
    event CreatorRightsTransferred(address indexed token, address indexed previousCreator, address indexed newCreator);
    event CreatorFeeRecipientUpdated(address indexed token, address indexed previousRecipient, address indexed newRecipient);
    event CreatorRightsReassigned(address indexed token, address indexed creator, address indexed feeRecipient);
    event CreatorAdminTransferred(address indexed previousAdmin, address indexed newAdmin);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event QuoteRegistered(address indexed quote, uint8 decimals, int24 startTickToken0Frame, uint64 revision);
    event QuoteStartTickUpdated(address indexed quote, int24 startTickToken0Frame, uint64 revision);
    event QuoteUnregistered(address indexed quote, uint64 revision);
    event FeeConfigurationUpdated(
        address platformFeeRecipient, uint16 baseFeeBps, uint16 antiSnipeStartTotalBps, uint32 antiSnipeWindowSeconds
    );
    event FeeComponentConfigured(bytes32 indexed componentId, FeeKind kind, address configuredRecipient, uint16 feeBps);
    event LaunchSupplyUpdated(uint256 launchSupply);
    event TickSpacingUpdated(int24 tickSpacing);
    event AnnouncementRegistrySet(address registry);
    event LaunchCreationEnabledUpdated(bool enabled);
    event BandTemplateUpdated(Band[] bands);
    event ConfigVersionUpdated(uint64 configVersion);

    error NotOwner();
    error NotCreatorAdmin();
    error NotCurrentCreator();
    error NotPendingCreator();
    error UnknownLaunchToken(address token);
    error InvalidConfig();
    error InvalidRecipient(address recipient);
    error StaleConfig(uint64 expected, uint64 actual);
    error LaunchExpired(uint64 deadline, uint256 timestamp);
    error EmptyTokenNameOrSymbol();
    error QuoteNotRegistered(address quote);
    error LaunchCreationDisabled();
    error LaunchSaltUsed(bytes32 scopedSalt);
    error InvalidTokenAddressSuffix(address predicted);
    error TokenMismatch(address predicted, address created);
    error MetadataNotEditable();
    error ReceiverRejected(address receiver);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
        _bumpConfigVersion();
    }

    /// Defaults: supply 1e9 tokens, spacing 200, base fee 100 bps = CREATOR 50 / PLATFORM 30 / REFERRER 20,
    /// anti-snipe from 9900 bps over 20 s, one band holding the whole supply. Creation starts disabled.
    constructor(IPoolManager poolManager_, LaunchHookBase hook_, address feeEscrow_, address owner_) {
        poolManager = poolManager_;
        hook = hook_;
        feeEscrow = feeEscrow_;
        owner = owner_;
        creatorAdmin = owner_;
        tokenDeployer = new LaunchTokenDeployer(_taxTokens());
        launchSupply = 1e9 * 1e18;
        tickSpacing = 200;
        FeeComponent[] memory c = new FeeComponent[](3);
        c[0] = FeeComponent(bytes32("CREATOR"), FeeKind.CREATOR, address(0), 50);
        c[1] = FeeComponent(bytes32("PLATFORM"), FeeKind.PLATFORM, owner_, 30);
        c[2] = FeeComponent(bytes32("REFERRER"), FeeKind.REFERRER, address(0), 20);
        _setFees(owner_, 100, 9900, 20, c);
        _bandTemplate.push(Band(0, 0, 10_000));
        _bumpConfigVersion();
    }

    // ---------------------------------------------------------------- views

    function feeComponentCount() external view returns (uint256) {
        return _feeComponents.length;
    }

    function feeComponents(uint256 i) external view returns (FeeComponent memory) {
        return _feeComponents[i];
    }

    function bandTemplate() external view returns (Band[] memory) {
        return _bandTemplate;
    }

    function creatorRights(address token) public view returns (CreatorRights memory r) {
        r = _rights[token];
        if (r.originalCreator == address(0)) revert UnknownLaunchToken(token);
    }

    function currentCreatorOf(address token) external view returns (address) {
        return creatorRights(token).currentCreator;
    }

    // ---------------------------------------------------------------- governance

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert InvalidConfig();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function setCreatorAdmin(address newAdmin) external onlyOwner {
        emit CreatorAdminTransferred(creatorAdmin, newAdmin);
        creatorAdmin = newAdmin;
    }

    function setLaunchCreationEnabled(bool enabled) external onlyOwner {
        launchCreationEnabled = enabled;
        emit LaunchCreationEnabledUpdated(enabled);
    }

    function setAnnouncementRegistry(address registry) external onlyOwner {
        announcementRegistry = registry;
        emit AnnouncementRegistrySet(registry);
    }

    function setLaunchSupply(uint256 supply) external onlyOwner {
        if (supply < MIN_LAUNCH_SUPPLY || supply > MAX_LAUNCH_SUPPLY) revert InvalidConfig();
        launchSupply = supply;
        emit LaunchSupplyUpdated(supply);
    }

    function setTickSpacing(int24 spacing) external onlyOwner {
        if (spacing < 1 || spacing > 16384) revert InvalidConfig();
        tickSpacing = spacing;
        emit TickSpacingUpdated(spacing);
    }

    function setBandTemplate(Band[] calldata bands) external onlyOwner {
        if (bands.length == 0 || bands.length > MAX_BANDS) revert InvalidConfig();
        delete _bandTemplate;
        uint256 total;
        for (uint256 i; i < bands.length; ++i) {
            if (bands[i].upperOffsetTicks != 0 && bands[i].upperOffsetTicks <= bands[i].lowerOffsetTicks) {
                revert InvalidConfig();
            }
            total += bands[i].supplyBps;
            _bandTemplate.push(bands[i]);
        }
        if (total != 10_000) revert InvalidConfig();
        emit BandTemplateUpdated(bands);
    }

    function setFeeConfiguration(
        address platformRecipient,
        uint16 baseBps,
        uint16 antiSnipeStartBps,
        uint32 windowSeconds,
        FeeComponent[] calldata components
    ) external onlyOwner {
        _setFees(platformRecipient, baseBps, antiSnipeStartBps, windowSeconds, components);
    }

    function registerQuotes(QuoteRegistration[] calldata quotes) external onlyOwner {
        if (quotes.length == 0 || quotes.length > MAX_QUOTE_BATCH) revert InvalidConfig();
        for (uint256 i; i < quotes.length; ++i) {
            address q = quotes[i].quote;
            _checkStartTick(quotes[i].startTickToken0Frame);
            uint8 decimals = q == address(0) ? 18 : IERC20Minimal(q).decimals();
            uint64 revision = ++quoteRevision[q];
            quoteConfig[q] = QuoteConfig(true, decimals, quotes[i].startTickToken0Frame);
            emit QuoteRegistered(q, decimals, quotes[i].startTickToken0Frame, revision);
        }
    }

    function updateQuoteStartTick(address quote, int24 startTickToken0Frame) external onlyOwner {
        if (!quoteConfig[quote].registered) revert QuoteNotRegistered(quote);
        _checkStartTick(startTickToken0Frame);
        quoteConfig[quote].startTickToken0Frame = startTickToken0Frame;
        emit QuoteStartTickUpdated(quote, startTickToken0Frame, ++quoteRevision[quote]);
    }

    function unregisterQuote(address quote) external onlyOwner {
        if (!quoteConfig[quote].registered) revert QuoteNotRegistered(quote);
        quoteConfig[quote].registered = false;
        emit QuoteUnregistered(quote, ++quoteRevision[quote]);
    }

    // ---------------------------------------------------------------- creator rights

    function proposeCreatorRightsTransfer(address token, address newCreator) external {
        CreatorRights storage r = _currentCreatorOnly(token);
        _checkRecipient(token, newCreator);
        r.pendingCreator = newCreator;
        emit CreatorRightsTransferProposed(token, msg.sender, newCreator);
    }

    function cancelCreatorRightsTransfer(address token) external {
        CreatorRights storage r = _currentCreatorOnly(token);
        address pending = r.pendingCreator;
        delete r.pendingCreator;
        emit CreatorRightsTransferCancelled(token, msg.sender, pending);
    }

    function acceptCreatorRightsTransfer(address token) external {
        CreatorRights storage r = _known(token);
        if (msg.sender != r.pendingCreator || msg.sender == address(0)) revert NotPendingCreator();
        _transferRights(token, r, msg.sender);
    }

    /// @notice Transfers creator rights at once; a contract receiver must accept them.
    function safeTransferCreatorRights(address token, address receiver, bytes calldata data) external {
        CreatorRights storage r = _currentCreatorOnly(token);
        _checkRecipient(token, receiver);
        _transferRights(token, r, receiver);
        if (receiver.code.length > 0) {
            try ICreatorRightsReceiver(receiver).onCreatorRightsReceived(msg.sender, msg.sender, token, data) returns (
                bytes4 ret
            ) {
                if (ret != ICreatorRightsReceiver.onCreatorRightsReceived.selector) revert ReceiverRejected(receiver);
            } catch {
                revert ReceiverRejected(receiver);
            }
        }
    }

    function setCreatorFeeRecipient(address token, address recipient) external {
        CreatorRights storage r = _currentCreatorOnly(token);
        _checkRecipient(token, recipient);
        emit CreatorFeeRecipientUpdated(token, r.creatorFeeRecipient, recipient);
        r.creatorFeeRecipient = recipient;
        hook.updateCreatorRights(r.poolId, r.currentCreator, recipient);
    }

    function adminReassignCreatorRights(address token, address creator, address feeRecipient) external {
        if (msg.sender != creatorAdmin) revert NotCreatorAdmin();
        CreatorRights storage r = _known(token);
        _checkRecipient(token, creator);
        _checkRecipient(token, feeRecipient);
        r.currentCreator = creator;
        r.creatorFeeRecipient = feeRecipient;
        delete r.pendingCreator;
        hook.updateCreatorRights(r.poolId, creator, feeRecipient);
        emit CreatorRightsReassigned(token, creator, feeRecipient);
    }

    // ---------------------------------------------------------------- metadata

    function updateTokenName(address token, string calldata name) external {
        _metadataEditor(token);
        if (bytes(name).length == 0) revert EmptyTokenNameOrSymbol();
        LaunchToken(token).setName(name);
    }

    function updateTokenSymbol(address token, string calldata symbol) external {
        _metadataEditor(token);
        if (bytes(symbol).length == 0) revert EmptyTokenNameOrSymbol();
        LaunchToken(token).setSymbol(symbol);
    }

    function updateTokenContractURI(address token, string calldata uri) external {
        _metadataEditor(token);
        LaunchToken(token).setContractURI(uri);
    }

    function updateTokenExtraMetadata(address token, string calldata key, string calldata value) external {
        _metadataEditor(token);
        if (bytes(key).length == 0) revert InvalidConfig();
        LaunchToken(token).setExtraMetadata(key, value);
    }

    // ---------------------------------------------------------------- launching

    /// What a launch needs, whatever the concrete factory's parameter tuple looks like.
    struct Launch {
        string name;
        string symbol;
        string contractURI;
        bytes32 creatorSalt;
        address quote;
        uint64 expectedConfigVersion;
        uint64 deadline;
        bool metadataEditable;
        string[] metadataKeys;
        string[] metadataValues;
        /// Supply kept by the factory for the concrete launch (allocations); the rest seeds the pool.
        uint256 reserved;
        /// Where creator fees go; 0 = the creator.
        address creatorFeeRecipient;
    }

    /// Whether this factory's tokens are tax tokens (they report balances to a dividend distributor).
    function _taxTokens() internal pure virtual returns (bool) {
        return false;
    }

    /// The address the token of `p` will have: CREATE2 from the token deployer (ERC-20 mode).
    function _predictToken(bytes32 scopedSalt, Launch memory p, uint256 supply) internal view virtual returns (address) {
        return tokenDeployer.predict(scopedSalt, p.name, p.symbol, supply);
    }

    /// Creates the token with `supply` credited to this factory.
    function _deployToken(bytes32 scopedSalt, Launch memory p, uint256 supply) internal virtual returns (address) {
        return tokenDeployer.deploy(scopedSalt, p.name, p.symbol, supply);
    }

    function _launch(Launch memory p, address creator) internal returns (address token, PoolKey memory key) {
        if (!launchCreationEnabled) revert LaunchCreationDisabled();
        if (p.expectedConfigVersion != configVersion) revert StaleConfig(p.expectedConfigVersion, configVersion);
        if (block.timestamp > p.deadline) revert LaunchExpired(p.deadline, block.timestamp);
        if (bytes(p.name).length == 0 || bytes(p.symbol).length == 0) revert EmptyTokenNameOrSymbol();
        QuoteConfig memory q = quoteConfig[p.quote];
        if (!q.registered) revert QuoteNotRegistered(p.quote);
        if (p.metadataKeys.length != p.metadataValues.length) revert InvalidConfig();
        bytes32 scopedSalt = keccak256(abi.encode(creator, p.creatorSalt));
        if (isLaunchSaltUsed[scopedSalt]) revert LaunchSaltUsed(scopedSalt);
        isLaunchSaltUsed[scopedSalt] = true;

        uint256 supply = launchSupply;
        address predicted = _predictToken(scopedSalt, p, supply);
        if (uint160(predicted) & 0xff != TOKEN_ADDRESS_SUFFIX) revert InvalidTokenAddressSuffix(predicted);
        token = _deployToken(scopedSalt, p, supply);
        if (token != predicted) revert TokenMismatch(predicted, token);
        if (bytes(p.contractURI).length != 0) LaunchToken(token).setContractURI(p.contractURI);
        for (uint256 i; i < p.metadataKeys.length; ++i) {
            if (bytes(p.metadataKeys[i]).length == 0) revert InvalidConfig();
            LaunchToken(token).setExtraMetadata(p.metadataKeys[i], p.metadataValues[i]);
        }

        address feeRecipient = p.creatorFeeRecipient == address(0) ? creator : p.creatorFeeRecipient;
        if (p.creatorFeeRecipient != address(0)) _checkRecipient(token, feeRecipient);
        key = _initializePool(token, p.quote, q.startTickToken0Frame, creator, feeRecipient, supply - p.reserved);
        PoolId poolId = key.toId();
        _rights[token] = CreatorRights(creator, creator, address(0), feeRecipient, poolId, p.metadataEditable);
        if (announcementRegistry != address(0)) AnnouncementRegistry(announcementRegistry).registerToken(token);
        emit Launched(token, poolId, creator, p.quote, supply, key.tickSpacing);
    }

    function _initializePool(
        address token,
        address quote,
        int24 frameTick,
        address creator,
        address feeRecipient,
        uint256 seedAmount
    ) private returns (PoolKey memory key) {
        bool token0 = token < quote;
        int24 spacing = tickSpacing;
        key = PoolKey({
            currency0: Currency.wrap(token0 ? token : quote),
            currency1: Currency.wrap(token0 ? quote : token),
            fee: 0,
            tickSpacing: spacing,
            hooks: IHooks(address(hook))
        });
        // The start tick in pool terms, truncated to the spacing; the price sits just outside the bands
        // so the seed is token-only.
        int24 start = ((token0 ? frameTick : -frameTick) / spacing) * spacing;
        poolManager.initialize(key, TickMath.getSqrtPriceAtTick(token0 ? start - spacing : start));
        _registerPool(key, token0, creator, feeRecipient);
        SeedBand[] memory bands = _seedBands(token0, start, spacing, seedAmount);
        IERC20Minimal(token).transfer(address(hook), seedAmount);
        hook.seedLiquidity(key, bands);
    }

    /// Registers the pool with the hook: the base fee, anti-snipe and fee components of non-tax suites.
    function _registerPool(PoolKey memory key, bool token0, address creator, address feeRecipient) internal virtual {
        LaunchHook(address(hook)).registerPool(
            key, token0, creator, feeRecipient, baseFeeBps, antiSnipeStartTotalBps, antiSnipeWindowSeconds, _feeComponents
        );
    }

    function _seedBands(bool token0, int24 start, int24 spacing, uint256 amount)
        private
        view
        returns (SeedBand[] memory bands)
    {
        uint256 n = _bandTemplate.length;
        bands = new SeedBand[](n);
        int24 maxTick = TickMath.maxUsableTick(spacing);
        uint256 left = amount;
        for (uint256 i; i < n; ++i) {
            Band memory b = _bandTemplate[i];
            // Offsets in the token0 frame; mirrored when the token is currency1.
            int24 near = int24(uint24(b.lowerOffsetTicks));
            int24 far = b.upperOffsetTicks == 0 ? int24(0) : int24(uint24(b.upperOffsetTicks));
            uint256 share = i == n - 1 ? left : amount * b.supplyBps / 10_000;
            left -= share;
            if (token0) {
                bands[i] = SeedBand(start + near, far == 0 ? maxTick : start + far, share);
            } else {
                bands[i] = SeedBand(far == 0 ? -maxTick : start - far, start - near, share);
            }
        }
    }

    // ---------------------------------------------------------------- internals

    function _setFees(
        address platformRecipient,
        uint16 baseBps,
        uint16 antiSnipeStartBps,
        uint32 windowSeconds,
        FeeComponent[] memory components
    ) private {
        if (
            platformRecipient == address(0) || baseBps == 0 || baseBps > 1000 || antiSnipeStartBps < baseBps
                || antiSnipeStartBps > 9900 || windowSeconds == 0 || components.length < 3 || components.length > 20
        ) revert InvalidConfig();
        uint256 sum;
        uint256 seen; // bit per kind CREATOR/PLATFORM/REFERRER
        delete _feeComponents;
        for (uint256 i; i < components.length; ++i) {
            FeeComponent memory c = components[i];
            if (i > 0 && c.componentId <= components[i - 1].componentId) revert InvalidConfig();
            if (c.kind == FeeKind.PLATFORM) c.configuredRecipient = platformRecipient;
            if (c.kind != FeeKind.FIXED) {
                uint256 bit = 1 << uint8(c.kind);
                bytes32 expected = c.kind == FeeKind.CREATOR
                    ? bytes32("CREATOR")
                    : c.kind == FeeKind.PLATFORM ? bytes32("PLATFORM") : bytes32("REFERRER");
                if (seen & bit != 0 || c.componentId != expected) revert InvalidConfig();
                seen |= bit;
            } else if (c.configuredRecipient == address(0)) {
                revert InvalidConfig();
            }
            sum += c.feeBps;
            _feeComponents.push(c);
            emit FeeComponentConfigured(c.componentId, c.kind, c.configuredRecipient, c.feeBps);
        }
        if (seen != 7 || sum != baseBps) revert InvalidConfig();
        platformFeeRecipient = platformRecipient;
        baseFeeBps = baseBps;
        antiSnipeStartTotalBps = antiSnipeStartBps;
        antiSnipeWindowSeconds = windowSeconds;
        emit FeeConfigurationUpdated(platformRecipient, baseBps, antiSnipeStartBps, windowSeconds);
    }

    function _checkStartTick(int24 tick) private view {
        int24 spacing = tickSpacing;
        if (tick < TickMath.MIN_TICK + spacing || tick > TickMath.MAX_TICK - spacing) revert InvalidConfig();
    }

    function _bumpConfigVersion() internal {
        emit ConfigVersionUpdated(++configVersion);
    }

    function _known(address token) private view returns (CreatorRights storage r) {
        r = _rights[token];
        if (r.originalCreator == address(0)) revert UnknownLaunchToken(token);
    }

    function _currentCreatorOnly(address token) private view returns (CreatorRights storage r) {
        r = _known(token);
        if (msg.sender != r.currentCreator) revert NotCurrentCreator();
    }

    function _metadataEditor(address token) private view {
        CreatorRights storage r = _currentCreatorOnly(token);
        if (!r.metadataEditable) revert MetadataNotEditable();
    }

    function _transferRights(address token, CreatorRights storage r, address newCreator) private {
        address previous = r.currentCreator;
        r.currentCreator = newCreator;
        delete r.pendingCreator;
        hook.updateCreatorRights(r.poolId, newCreator, r.creatorFeeRecipient);
        emit CreatorRightsTransferred(token, previous, newCreator);
    }

    function _checkRecipient(address token, address recipient) private view {
        if (
            recipient == address(0) || recipient == token || recipient == address(this) || recipient == address(hook)
                || recipient == address(poolManager) || recipient == feeEscrow || recipient == announcementRegistry
        ) revert InvalidRecipient(recipient);
    }
}
