// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {LaunchBuyRequest, RouteStep, TokenTransfer} from "./LaunchTypes.sol";

/// @title LaunchBuyAdapter
/// @notice Executes the creator's atomic first buy for the factory: exact-in v4 hops from the funding
/// currency (native or an ERC-20 such as the quote) ending in the new launch pool, output to the creator.
/// Uniswap v3 hops (kind 1, through a SwapX router) are not available in this implementation.
contract LaunchBuyAdapter is IUnlockCallback {
    using PoolIdLibrary for PoolKey;

    uint8 public constant STEP_V3 = 1;
    uint8 public constant STEP_V4 = 2;

    address public immutable factory;
    address public immutable launchHook;
    IPoolManager public immutable poolManager;
    /// The router of v3 hops; none here.
    address public immutable router;

    error NotFactory();
    error NotPoolManager();
    error LaunchBuyExpired();
    error InvalidLaunchBuyRequest();
    error UnsupportedRouteStep(uint8 kind);
    error LaunchBuySlippage(uint256 minAmountOut, uint256 amountOut);

    constructor(address factory_, address launchHook_, IPoolManager poolManager_, address router_) {
        factory = factory_;
        launchHook = launchHook_;
        poolManager = poolManager_;
        router = router_;
    }

    /// The address that calls PoolManager.swap (the hook's launch-buy exemption is armed for it).
    function swapCaller() external view returns (address) {
        return address(this);
    }

    function executeLaunchBuy(LaunchBuyRequest calldata request) external payable returns (uint256 amountOut) {
        if (msg.sender != factory) revert NotFactory();
        if (block.timestamp > request.deadline) revert LaunchBuyExpired();
        RouteStep[] memory steps = abi.decode(request.routeData, (RouteStep[]));
        uint256 n = steps.length;
        if (n == 0 || steps[0].tokenIn != request.fundingToken) revert InvalidLaunchBuyRequest();
        RouteStep memory last = steps[n - 1];
        if (
            last.tokenIn != request.quoteToken || last.tokenOut != request.launchToken
                || PoolId.unwrap(_key(last).toId()) != PoolId.unwrap(request.poolKey.toId())
        ) revert InvalidLaunchBuyRequest();
        for (uint256 i; i < n; ++i) {
            if (steps[i].kind != STEP_V4) revert UnsupportedRouteStep(steps[i].kind);
            if (i > 0 && steps[i].tokenIn != steps[i - 1].tokenOut) revert InvalidLaunchBuyRequest();
        }
        amountOut = abi.decode(poolManager.unlock(abi.encode(request, steps)), (uint256));
        if (amountOut < request.minAmountOut) revert LaunchBuySlippage(request.minAmountOut, amountOut);
    }

    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        (LaunchBuyRequest memory request, RouteStep[] memory steps) = abi.decode(data, (LaunchBuyRequest, RouteStep[]));
        uint256 amount = request.amountIn;
        for (uint256 i; i < steps.length; ++i) {
            bool zeroForOne = steps[i].tokenIn < steps[i].tokenOut;
            BalanceDelta delta = poolManager.swap(
                _key(steps[i]),
                SwapParams({
                    zeroForOne: zeroForOne,
                    amountSpecified: -int256(amount),
                    sqrtPriceLimitX96: zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1
                }),
                steps[i].hookData
            );
            amount = uint256(uint128(zeroForOne ? delta.amount1() : delta.amount0()));
        }
        Currency funding = Currency.wrap(request.fundingToken);
        if (funding.isAddressZero()) {
            poolManager.settle{value: request.amountIn}();
        } else {
            poolManager.sync(funding);
            TokenTransfer.send(request.fundingToken, address(poolManager), request.amountIn);
            poolManager.settle();
        }
        poolManager.take(Currency.wrap(request.launchToken), request.originalCreator, amount);
        return abi.encode(amount);
    }

    function _key(RouteStep memory s) private pure returns (PoolKey memory) {
        (address a, address b) = s.tokenIn < s.tokenOut ? (s.tokenIn, s.tokenOut) : (s.tokenOut, s.tokenIn);
        return PoolKey(Currency.wrap(a), Currency.wrap(b), s.fee, s.tickSpacing, IHooks(s.hooks));
    }
}
