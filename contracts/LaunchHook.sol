// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {FeeComponent, FeeKind, PoolConfig} from "./LaunchTypes.sol";
import {LaunchHookBase} from "./LaunchHookBase.sol";

/// @title LaunchHook
/// @notice The hook of non-tax launch pools: every swap pays a base fee in bps, plus an anti-snipe
/// surcharge that decays to 0 over the window after launch. Fees are minted as ERC-6909 claims to the fee
/// escrow and credited per component (creator, platform, referrer, fixed).
contract LaunchHook is LaunchHookBase {
    using PoolIdLibrary for PoolKey;

    uint16 public constant MAX_BASE_FEE_BPS = 1000;
    uint16 public constant MAX_TOTAL_FEE_BPS = 9900;
    uint256 public constant MAX_FEE_COMPONENTS = 20;
    uint256 public constant MAX_LAUNCH_BUY_ROUTE_DATA_LENGTH = 4096;
    bytes32 private constant LAUNCH_BUY_SLOT = keccak256("launchpad.hook.launchBuy");
    /// PS units per basis point.
    uint256 private constant BPS = 10_000;

    mapping(PoolId => PoolConfig) public poolConfig;
    mapping(PoolId => FeeComponent[]) private _components;

    event PoolRegistered(PoolId indexed poolId, address originalCreator, address creatorFeeRecipient, uint16 baseFeeBps);

    error UnexpectedFeeCurrency();
    error InvalidLaunchBuyRequest();

    constructor(IPoolManager poolManager_, address deployer_) LaunchHookBase(poolManager_, deployer_) {}

    // ---------------------------------------------------------------- factory

    function registerPool(
        PoolKey calldata key,
        bool tokenIsCurrency0,
        address originalCreator,
        address creatorFeeRecipient,
        uint16 baseFeeBps,
        uint16 antiSnipeStartTotalBps,
        uint32 antiSnipeWindowSeconds,
        FeeComponent[] calldata components
    ) external onlyFactory {
        PoolId id = key.toId();
        if (poolConfig[id].initialized) revert AlreadyRegistered();
        if (
            baseFeeBps == 0 || baseFeeBps > MAX_BASE_FEE_BPS || antiSnipeStartTotalBps < baseFeeBps
                || antiSnipeStartTotalBps > MAX_TOTAL_FEE_BPS || antiSnipeWindowSeconds == 0
                || components.length > MAX_FEE_COMPONENTS
        ) revert InvalidFeeConfig();
        poolConfig[id] = PoolConfig({
            initialized: true,
            tokenIsCurrency0: tokenIsCurrency0,
            currentCreator: originalCreator,
            creatorFeeRecipient: creatorFeeRecipient,
            baseFeeBps: baseFeeBps,
            antiSnipeStartTotalBps: antiSnipeStartTotalBps,
            antiSnipeWindowSeconds: antiSnipeWindowSeconds,
            launchTime: uint48(block.timestamp)
        });
        quoteOf[id] = Currency.unwrap(tokenIsCurrency0 ? key.currency1 : key.currency0);
        for (uint256 i; i < components.length; ++i) {
            _components[id].push(components[i]);
        }
        emit PoolRegistered(id, originalCreator, creatorFeeRecipient, baseFeeBps);
    }

    function updateCreatorRights(PoolId id, address currentCreator, address creatorFeeRecipient)
        external
        override
        onlyFactory
    {
        PoolConfig storage c = poolConfig[id];
        if (!c.initialized) revert UnknownPool();
        c.currentCreator = currentCreator;
        c.creatorFeeRecipient = creatorFeeRecipient;
        emit CreatorRightsUpdated(id, currentCreator, creatorFeeRecipient);
    }

    /// @notice Arms the one launch buy of this transaction: `swapper`'s next exact-in buy on the pool pays
    /// the base fee only. Transient, so it never outlives the launch transaction.
    function armLaunchBuy(PoolId id, address swapper) external override onlyFactory {
        bytes32 slot = LAUNCH_BUY_SLOT;
        bytes32 value = keccak256(abi.encode(id, swapper));
        assembly ("memory-safe") {
            tstore(slot, value)
        }
    }

    // ---------------------------------------------------------------- views

    function poolFeeComponents(PoolId id) external view returns (FeeComponent[] memory) {
        return _components[id];
    }

    /// @notice The total fee in bps at the current block time (base plus the decaying surcharge).
    function currentFeeBps(PoolId id) external view returns (uint256) {
        return _totalFeeBps(poolConfig[id]);
    }

    // ---------------------------------------------------------------- fees

    function _tokenIsCurrency0(PoolId id) internal view override returns (bool) {
        PoolConfig storage c = poolConfig[id];
        if (!c.initialized) revert UnknownPool();
        return c.tokenIsCurrency0;
    }

    function _swapRates(address sender, PoolId id, bool buy, bool exactIn, bool consume)
        internal
        override
        returns (uint256 rate, uint256 baseRate)
    {
        PoolConfig memory c = poolConfig[id];
        baseRate = c.baseFeeBps * BPS;
        bytes32 slot = LAUNCH_BUY_SLOT;
        bytes32 armed;
        assembly ("memory-safe") {
            armed := tload(slot)
        }
        if (armed != bytes32(0) && armed == keccak256(abi.encode(id, sender))) {
            if (!exactIn || !buy) revert InvalidLaunchBuyRequest();
            rate = baseRate;
            if (consume) {
                assembly ("memory-safe") {
                    tstore(slot, 0)
                }
            }
        } else {
            rate = _totalFeeBps(c) * BPS;
            if (!exactIn && rate > baseRate) revert ExactOutputDisabledDuringAntiSnipe();
        }
    }

    /// What one swap's fee split carries between the component credits.
    struct Split {
        PoolId id;
        address currency;
        address referrer;
        uint256 baseFee;
        uint256 credited;
    }

    function _distribute(PoolId id, address sender, bytes calldata hookData, bool, uint256 totalFee, uint256 baseFee)
        internal
        override
    {
        PoolConfig memory c = poolConfig[id];
        Split memory s = Split(id, quoteOf[id], address(0), baseFee, 0);
        _mintClaim(address(feeEscrow), s.currency, totalFee);
        bytes32 comment;
        (s.referrer, comment) = _decodeHookData(hookData);
        if (!_validReferrer(s.referrer, sender, c.currentCreator, c.creatorFeeRecipient)) s.referrer = address(0);
        FeeComponent[] storage components = _components[id];
        uint256 platform = type(uint256).max;
        for (uint256 i; i < components.length; ++i) {
            if (components[i].kind == FeeKind.PLATFORM) platform = i;
            else _creditShare(s, c, components[i]);
        }
        if (platform == type(uint256).max) revert InvalidFeeConfig();
        // The platform takes the rest: its share, the anti-snipe surcharge and any dropped share.
        if (totalFee > s.credited) {
            FeeComponent memory p = components[platform];
            _credit(id, p.componentId, p.configuredRecipient, s.currency, totalFee - s.credited);
        }
        emit Trade(id, sender, s.referrer, s.currency, totalFee, comment);
    }

    function _creditShare(Split memory s, PoolConfig memory c, FeeComponent memory fc) private {
        address recipient = fc.kind == FeeKind.CREATOR
            ? c.creatorFeeRecipient
            : fc.kind == FeeKind.REFERRER ? s.referrer : fc.configuredRecipient;
        uint256 amount = s.baseFee * fc.feeBps / c.baseFeeBps;
        if (recipient == address(0) || amount == 0) return;
        s.credited += amount;
        _credit(s.id, fc.componentId, recipient, s.currency, amount);
    }

    function _totalFeeBps(PoolConfig memory c) private view returns (uint256) {
        uint256 elapsed = block.timestamp - c.launchTime;
        uint256 window = c.antiSnipeWindowSeconds;
        if (elapsed >= window) return c.baseFeeBps;
        uint256 total =
            c.baseFeeBps + (uint256(c.antiSnipeStartTotalBps) - c.baseFeeBps) * (window - elapsed) / window;
        return total > MAX_TOTAL_FEE_BPS ? MAX_TOTAL_FEE_BPS : total;
    }
}
