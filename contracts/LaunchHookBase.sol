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
import {SeedBand, IERC20Minimal} from "./LaunchTypes.sol";
import {FeeEscrow} from "./FeeEscrow.sol";

/// @title LaunchHookBase
/// @notice What every launch hook shares: only its factory initialises pools, the single-sided seed is
/// the only liquidity ever added and it is never removed, and every swap pays a fee in the quote currency,
/// taken from the quote side (before the swap when the quote is specified, after it otherwise) and handed
/// to the concrete hook to split. Rates are in PS units (100000000 = 100%). Permission bits 0x2ACC.
abstract contract LaunchHookBase is IHooks, IUnlockCallback {
    using PoolIdLibrary for PoolKey;

    /// 100% in rate units.
    uint256 public constant PS = 100_000_000;

    IPoolManager public immutable poolManager;
    address public immutable deployer;
    address public factory;
    FeeEscrow public feeEscrow;

    mapping(PoolId => address) public quoteOf;

    event Wired(address factory, address escrow);
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
    error LiquidityLocked();
    error NotSingleSided();
    error HookNotImplemented();
    error ExactOutputDisabledDuringAntiSnipe();
    error PartialFillUnsupported();

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
    function wire(address factory_, FeeEscrow escrow_) external virtual {
        if (msg.sender != deployer) revert NotFactory();
        if (factory != address(0)) revert AlreadyWired();
        factory = factory_;
        feeEscrow = escrow_;
        emit Wired(factory_, address(escrow_));
    }

    // ---------------------------------------------------------------- what a concrete hook decides

    /// Whether the launch token is currency0 of the pool (reverts UnknownPool for other pools).
    function _tokenIsCurrency0(PoolId id) internal view virtual returns (bool);

    /// The fee rate of this swap and its base part (without an anti-snipe surcharge), in PS units.
    /// `consume` is true in afterSwap, where one-shot state may be used up.
    function _swapRates(address sender, PoolId id, bool buy, bool exactIn, bool consume)
        internal
        virtual
        returns (uint256 rate, uint256 baseRate);

    /// Splits `fee` (of which `baseFee` at the base rate) of one swap between the recipients; the hook
    /// holds `fee` of the quote currency as a PoolManager credit that this must settle.
    function _distribute(PoolId id, address sender, bytes calldata hookData, bool buy, uint256 fee, uint256 baseFee)
        internal
        virtual;

    /// @notice The factory's update of a pool's creator and creator fee recipient.
    function updateCreatorRights(PoolId id, address currentCreator, address creatorFeeRecipient) external virtual;

    /// @notice Arms a launch buy; only hooks of factories with an atomic launch buy support it.
    function armLaunchBuy(PoolId, address) external virtual {
        revert HookNotImplemented();
    }

    // ---------------------------------------------------------------- seeding

    /// @notice Adds the token-only seed bands; the factory has transferred the tokens to this hook.
    function seedLiquidity(PoolKey calldata key, SeedBand[] calldata bands) external onlyFactory {
        poolManager.unlock(abi.encode(key, bands));
    }

    function unlockCallback(bytes calldata data) external onlyPoolManager returns (bytes memory) {
        (PoolKey memory key, SeedBand[] memory bands) = abi.decode(data, (PoolKey, SeedBand[]));
        PoolId id = key.toId();
        bool token0 = _tokenIsCurrency0(id);
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
        bool buy;
        bool quoteSpecified;
        uint256 rate;
        uint256 baseRate;
    }

    function _swapFee(address sender, PoolId id, SwapParams calldata params, bool consume)
        private
        returns (SwapFee memory f)
    {
        f.exactIn = params.amountSpecified < 0;
        f.buy = params.zeroForOne != _tokenIsCurrency0(id); // the input is the quote
        f.quoteSpecified = f.exactIn == f.buy;
        (f.rate, f.baseRate) = _swapRates(sender, id, f.buy, f.exactIn, consume);
    }

    function beforeSwap(address sender, PoolKey calldata key, SwapParams calldata params, bytes calldata)
        external
        onlyPoolManager
        returns (bytes4, BeforeSwapDelta, uint24)
    {
        SwapFee memory f = _swapFee(sender, key.toId(), params, false);
        if (!f.quoteSpecified) return (IHooks.beforeSwap.selector, BeforeSwapDeltaLibrary.ZERO_DELTA, 0);
        uint256 fee = _fee(_abs(params.amountSpecified), f.rate, f.exactIn);
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
        SwapFee memory f = _swapFee(sender, id, params, true);
        (uint256 fee, uint256 baseFee) = _settledFee(f, params, delta);
        if (fee > 0) _distribute(id, sender, hookData, f.buy, fee, baseFee);
        return (IHooks.afterSwap.selector, f.quoteSpecified ? int128(0) : int128(uint128(fee)));
    }

    /// The fee of a completed swap (and its base part), after checking the swap filled completely.
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
        fee = _fee(m, f.rate, f.exactIn);
        baseFee = _fee(m, f.baseRate, f.exactIn);
        int256 specifiedDelta = specifiedIs0 ? delta.amount0() : delta.amount1();
        if (specifiedDelta != params.amountSpecified + int256(f.quoteSpecified ? fee : 0)) {
            revert PartialFillUnsupported();
        }
    }

    // ---------------------------------------------------------------- helpers for the split

    /// Mints `amount` of the pool's quote currency as an ERC-6909 claim to `to` (settles the hook's credit).
    function _mintClaim(address to, address currency, uint256 amount) internal {
        poolManager.mint(to, uint256(uint160(currency)), amount);
    }

    /// Books `amount` (already minted to the escrow) for `recipient`.
    function _credit(PoolId id, bytes32 componentId, address recipient, address currency, uint256 amount) internal {
        feeEscrow.credit(recipient, currency, amount);
        emit FeeComponentCredited(id, componentId, recipient, currency, amount);
    }

    function _validReferrer(address referrer, address sender, address creator, address creatorFeeRecipient)
        internal
        view
        returns (bool)
    {
        return referrer != address(0) && referrer != sender && referrer != creator && referrer != creatorFeeRecipient
            && referrer != address(this) && referrer != factory && referrer != address(feeEscrow)
            && referrer != address(poolManager);
    }

    /// hookData = abi.encode(address referrer, bytes32 comment); anything shorter means neither.
    function _decodeHookData(bytes calldata hookData) internal pure returns (address referrer, bytes32 comment) {
        if (hookData.length < 64) return (address(0), bytes32(0));
        referrer = address(uint160(uint256(bytes32(hookData[0:32]))));
        comment = bytes32(hookData[32:64]);
    }

    /// Exact-in: floor(m × rate / PS). Exact-out: ceil(m × rate / (PS − rate)).
    function _fee(uint256 m, uint256 rate, bool exactIn) internal pure returns (uint256) {
        if (exactIn) return m * rate / PS;
        uint256 d = PS - rate;
        return (m * rate + d - 1) / d;
    }

    function _abs(int256 x) internal pure returns (uint256) {
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
