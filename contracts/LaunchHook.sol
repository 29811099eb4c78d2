// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {Hooks} from "@uniswap/v4-core/src/libraries/Hooks.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {BeforeSwapDelta, BeforeSwapDeltaLibrary, toBeforeSwapDelta} from "@uniswap/v4-core/src/types/BeforeSwapDelta.sol";
import {ModifyLiquidityParams, SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {LiquidityAmounts} from "@uniswap/v4-periphery/src/libraries/LiquidityAmounts.sol";
import {FeeComponent, FeeKind, PoolConfig, SeedBand, IERC20Minimal} from "./LaunchTypes.sol";
import {FeeEscrow} from "./FeeEscrow.sol";

/// @title LaunchHook
/// @notice The Uniswap v4 hook of every launch pool: only its factory initialises pools, the single-sided
/// seed is the only liquidity ever added and it is never removed, and every swap pays a fee in the quote
/// currency (base fee, plus an anti-snipe surcharge that decays to 0 over the window after launch). Fees
/// are minted as ERC-6909 claims to the fee escrow and credited per component (creator, platform,
/// referrer, fixed). Its address carries permission bits 0x2ACC.
contract LaunchHook is IHooks, IUnlockCallback {
    using PoolIdLibrary for PoolKey;

    uint16 public constant MAX_BASE_FEE_BPS = 1000;
    uint16 public constant MAX_TOTAL_FEE_BPS = 9900;
    uint256 public constant MAX_FEE_COMPONENTS = 20;
    uint256 public constant MAX_LAUNCH_BUY_ROUTE_DATA_LENGTH = 4096;
    bytes32 private constant LAUNCH_BUY_SLOT = keccak256("launchpad.hook.launchBuy");

    IPoolManager public immutable poolManager;
    address public immutable deployer;
    address public factory;
    FeeEscrow public feeEscrow;

    mapping(PoolId => PoolConfig) public poolConfig;
    mapping(PoolId => FeeComponent[]) private _components;
    mapping(PoolId => address) public quoteOf;

    event Wired(address factory, address escrow);
    event PoolRegistered(PoolId indexed poolId, address originalCreator, address creatorFeeRecipient, uint16 baseFeeBps);
    event CreatorRightsUpdated(PoolId indexed poolId, address currentCreator, address creatorFeeRecipient);
    event Seeded(PoolId indexed poolId, uint256 tokenAmountSeeded);
    event Trade(
        PoolId indexed poolId,
        address indexed executor,
        address indexed referrer,
        address feeCurrency,
        uint256 totalFeeAmount,
        bytes32 comment
    );
    event FeeComponentCredited(
        PoolId indexed poolId, bytes32 indexed componentId, address indexed recipient, address currency, uint256 amount
    );

    error NotFactory();
    error NotPoolManager();
    error NotWired();
    error AlreadyWired();
    error AlreadyRegistered();
    error UnknownPool();
    error InvalidFeeConfig();
    error UnexpectedFeeCurrency();
    error LiquidityLocked();
    error NotSingleSided();
    error HookNotImplemented();
    error ExactOutputDisabledDuringAntiSnipe();
    error PartialFillUnsupported();
    error InvalidLaunchBuyRequest();

    modifier onlyPoolManager() {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        _;
    }

    modifier onlyFactory() {
        if (msg.sender != factory || factory == address(0)) revert NotFactory();
        _;
    }

    constructor(IPoolManager poolManager_, address deployer_) {
        poolManager = poolManager_;
        deployer = deployer_;
        Hooks.validateHookPermissions(
            this,
            Hooks.Permissions({
                beforeInitialize: true,
                afterInitialize: false,
                beforeAddLiquidity: true,
                afterAddLiquidity: false,
                beforeRemoveLiquidity: true,
                afterRemoveLiquidity: false,
                beforeSwap: true,
                afterSwap: true,
                beforeDonate: false,
                afterDonate: false,
                beforeSwapReturnDelta: true,
                afterSwapReturnDelta: true,
                afterAddLiquidityReturnDelta: false,
                afterRemoveLiquidityReturnDelta: false
            })
        );
    }

    /// @notice Binds the hook to its factory and escrow, once, by the deployer.
    function wire(address factory_, FeeEscrow escrow_) external {
        if (msg.sender != deployer) revert NotFactory();
        if (factory != address(0)) revert AlreadyWired();
        factory = factory_;
        feeEscrow = escrow_;
        emit Wired(factory_, address(escrow_));
    }

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

    function updateCreatorRights(PoolId id, address currentCreator, address creatorFeeRecipient) external onlyFactory {
        PoolConfig storage c = poolConfig[id];
        if (!c.initialized) revert UnknownPool();
        c.currentCreator = currentCreator;
        c.creatorFeeRecipient = creatorFeeRecipient;
        emit CreatorRightsUpdated(id, currentCreator, creatorFeeRecipient);
    }

    /// @notice Adds the token-only seed bands; the factory has transferred the tokens to this hook.
    function seedLiquidity(PoolKey calldata key, SeedBand[] calldata bands) external onlyFactory {
        poolManager.unlock(abi.encode(key, bands));
    }

    /// @notice Arms the one launch buy of this transaction: `swapper`'s next exact-in buy on the pool pays
    /// the base fee only. Transient, so it never outlives the launch transaction.
    function armLaunchBuy(PoolId id, address swapper) external onlyFactory {
        bytes32 slot = LAUNCH_BUY_SLOT;
        bytes32 value = keccak256(abi.encode(id, swapper));
        assembly ("memory-safe") {
            tstore(slot, value)
        }
    }

    function unlockCallback(bytes calldata data) external onlyPoolManager returns (bytes memory) {
        (PoolKey memory key, SeedBand[] memory bands) = abi.decode(data, (PoolKey, SeedBand[]));
        PoolId id = key.toId();
        bool token0 = poolConfig[id].tokenIsCurrency0;
        uint256 owed;
        for (uint256 i; i < bands.length; ++i) {
            SeedBand memory b = bands[i];
            uint160 lower = TickMath.getSqrtPriceAtTick(b.tickLower);
            uint160 upper = TickMath.getSqrtPriceAtTick(b.tickUpper);
            uint128 liquidity = token0
                ? LiquidityAmounts.getLiquidityForAmount0(lower, upper, b.amount)
                : LiquidityAmounts.getLiquidityForAmount1(lower, upper, b.amount);
            (BalanceDelta delta,) = poolManager.modifyLiquidity(
                key,
                ModifyLiquidityParams({
                    tickLower: b.tickLower,
                    tickUpper: b.tickUpper,
                    liquidityDelta: int256(uint256(liquidity)),
                    salt: bytes32(0)
                }),
                ""
            );
            if ((token0 ? delta.amount1() : delta.amount0()) != 0) revert NotSingleSided();
            owed += uint256(uint128(-(token0 ? delta.amount0() : delta.amount1())));
        }
        Currency token = token0 ? key.currency0 : key.currency1;
        poolManager.sync(token);
        IERC20Minimal(Currency.unwrap(token)).transfer(address(poolManager), owed);
        poolManager.settle();
        emit Seeded(id, owed);
        return "";
    }

    // ---------------------------------------------------------------- views

    function poolFeeComponents(PoolId id) external view returns (FeeComponent[] memory) {
        return _components[id];
    }

    /// @notice The total fee in bps at the current block time (base plus the decaying surcharge).
    function currentFeeBps(PoolId id) external view returns (uint256) {
        return _totalFeeBps(poolConfig[id]);
    }

    // ---------------------------------------------------------------- hooks

    function beforeInitialize(address sender, PoolKey calldata, uint160) external view onlyPoolManager returns (bytes4) {
        if (factory == address(0)) revert NotWired();
        if (sender != factory) revert NotFactory();
        return IHooks.beforeInitialize.selector;
    }

    /// The hook's own seed never reaches here (the PoolManager skips calls from the hook itself).
    function beforeAddLiquidity(address, PoolKey calldata, ModifyLiquidityParams calldata, bytes calldata)
        external
        view
        onlyPoolManager
        returns (bytes4)
    {
        revert LiquidityLocked();
    }

    function beforeRemoveLiquidity(address, PoolKey calldata, ModifyLiquidityParams calldata, bytes calldata)
        external
        view
        onlyPoolManager
        returns (bytes4)
    {
        revert LiquidityLocked();
    }

    struct SwapFee {
        bool exactIn;
        bool quoteSpecified;
        uint256 bps;
        uint256 baseBps;
    }

    function _swapFee(address sender, PoolId id, SwapParams calldata params, bool consume)
        private
        returns (SwapFee memory f, PoolConfig memory c)
    {
        c = poolConfig[id];
        if (!c.initialized) revert UnknownPool();
        f.exactIn = params.amountSpecified < 0;
        bool buy = params.zeroForOne != c.tokenIsCurrency0; // the input is the quote
        f.quoteSpecified = f.exactIn == buy;
        f.baseBps = c.baseFeeBps;
        bytes32 slot = LAUNCH_BUY_SLOT;
        bytes32 armed;
        assembly ("memory-safe") {
            armed := tload(slot)
        }
        if (armed != bytes32(0) && armed == keccak256(abi.encode(id, sender))) {
            if (!f.exactIn || !buy) revert InvalidLaunchBuyRequest();
            f.bps = c.baseFeeBps;
            if (consume) {
                assembly ("memory-safe") {
                    tstore(slot, 0)
                }
            }
        } else {
            f.bps = _totalFeeBps(c);
            if (!f.exactIn && f.bps > c.baseFeeBps) revert ExactOutputDisabledDuringAntiSnipe();
        }
    }

    function beforeSwap(address sender, PoolKey calldata key, SwapParams calldata params, bytes calldata)
        external
        onlyPoolManager
        returns (bytes4, BeforeSwapDelta, uint24)
    {
        (SwapFee memory f,) = _swapFee(sender, key.toId(), params, false);
        if (!f.quoteSpecified) return (IHooks.beforeSwap.selector, BeforeSwapDeltaLibrary.ZERO_DELTA, 0);
        uint256 fee = _fee(_abs(params.amountSpecified), f.bps, f.exactIn);
        return (IHooks.beforeSwap.selector, toBeforeSwapDelta(int128(uint128(fee)), 0), 0);
    }

    function afterSwap(
        address sender,
        PoolKey calldata key,
        SwapParams calldata params,
        BalanceDelta delta,
        bytes calldata hookData
    ) external onlyPoolManager returns (bytes4, int128) {
        PoolId id = key.toId();
        (SwapFee memory f, PoolConfig memory c) = _swapFee(sender, id, params, true);
        (uint256 fee, uint256 baseFee) = _settledFee(f, params, delta);
        if (fee > 0) _distribute(id, c, sender, hookData, fee, baseFee);
        return (IHooks.afterSwap.selector, f.quoteSpecified ? int128(0) : int128(uint128(fee)));
    }

    /// The fee of a completed swap (and its base-fee part), after checking the swap filled completely.
    function _settledFee(SwapFee memory f, SwapParams calldata params, BalanceDelta delta)
        private
        pure
        returns (uint256 fee, uint256 baseFee)
    {
        bool specifiedIs0 = f.exactIn == params.zeroForOne;
        // The fee amount base m: the specified amount when it is the quote, else the realised quote amount.
        uint256 m = f.quoteSpecified
            ? _abs(params.amountSpecified)
            : _abs(int256(specifiedIs0 ? delta.amount1() : delta.amount0()));
        fee = _fee(m, f.bps, f.exactIn);
        baseFee = _fee(m, f.baseBps, f.exactIn);
        int256 specifiedDelta = specifiedIs0 ? delta.amount0() : delta.amount1();
        if (specifiedDelta != params.amountSpecified + int256(f.quoteSpecified ? fee : 0)) {
            revert PartialFillUnsupported();
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

    function _distribute(
        PoolId id,
        PoolConfig memory c,
        address sender,
        bytes calldata hookData,
        uint256 totalFee,
        uint256 baseFee
    ) private {
        Split memory s = Split(id, quoteOf[id], address(0), baseFee, 0);
        poolManager.mint(address(feeEscrow), uint256(uint160(s.currency)), totalFee);
        bytes32 comment;
        (s.referrer, comment) = _decodeHookData(hookData);
        if (!_validReferrer(s.referrer, sender, c)) s.referrer = address(0);
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

    function _credit(PoolId id, bytes32 componentId, address recipient, address currency, uint256 amount) private {
        feeEscrow.credit(recipient, currency, amount);
        emit FeeComponentCredited(id, componentId, recipient, currency, amount);
    }

    function _validReferrer(address referrer, address sender, PoolConfig memory c) private view returns (bool) {
        return referrer != address(0) && referrer != sender && referrer != c.currentCreator
            && referrer != c.creatorFeeRecipient && referrer != address(this) && referrer != factory
            && referrer != address(feeEscrow) && referrer != address(poolManager);
    }

    /// hookData = abi.encode(address referrer, bytes32 comment); anything shorter means neither.
    function _decodeHookData(bytes calldata hookData) private pure returns (address referrer, bytes32 comment) {
        if (hookData.length < 64) return (address(0), bytes32(0));
        referrer = address(uint160(uint256(bytes32(hookData[0:32]))));
        comment = bytes32(hookData[32:64]);
    }

    function _totalFeeBps(PoolConfig memory c) private view returns (uint256) {
        uint256 elapsed = block.timestamp - c.launchTime;
        uint256 window = c.antiSnipeWindowSeconds;
        if (elapsed >= window) return c.baseFeeBps;
        uint256 total =
            c.baseFeeBps + (uint256(c.antiSnipeStartTotalBps) - c.baseFeeBps) * (window - elapsed) / window;
        return total > MAX_TOTAL_FEE_BPS ? MAX_TOTAL_FEE_BPS : total;
    }

    /// Exact-in: floor(m × bps / 10000). Exact-out: ceil(m × bps / (10000 − bps)).
    function _fee(uint256 m, uint256 bps, bool exactIn) private pure returns (uint256) {
        if (exactIn) return m * bps / 10_000;
        uint256 d = 10_000 - bps;
        return (m * bps + d - 1) / d;
    }

    function _abs(int256 x) private pure returns (uint256) {
        return uint256(x < 0 ? -x : x);
    }

    // ---------------------------------------------------------------- unused hook points

    function afterInitialize(address, PoolKey calldata, uint160, int24) external pure returns (bytes4) {
        revert HookNotImplemented();
    }

    function afterAddLiquidity(
        address,
        PoolKey calldata,
        ModifyLiquidityParams calldata,
        BalanceDelta,
        BalanceDelta,
        bytes calldata
    ) external pure returns (bytes4, BalanceDelta) {
        revert HookNotImplemented();
    }

    function afterRemoveLiquidity(
        address,
        PoolKey calldata,
        ModifyLiquidityParams calldata,
        BalanceDelta,
        BalanceDelta,
        bytes calldata
    ) external pure returns (bytes4, BalanceDelta) {
        revert HookNotImplemented();
    }

    function beforeDonate(address, PoolKey calldata, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        revert HookNotImplemented();
    }

    function afterDonate(address, PoolKey calldata, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        revert HookNotImplemented();
    }
}
