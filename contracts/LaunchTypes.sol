// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId} from "@uniswap/v4-core/src/types/PoolId.sol";

/// Shared types of the launchpad suite. Tuple layouts follow the production interface (REFERENCE §4).

struct LaunchParams {
    string tokenName;
    string tokenSymbol;
    string tokenContractURI;
    bytes32 creatorSalt;
    address quoteToken;
    uint64 expectedConfigVersion;
    uint64 deadline;
    bool metadataEditable;
    string[] metadataKeys;
    string[] metadataValues;
}

struct LaunchBuyParams {
    address fundingToken;
    uint256 amountIn;
    uint256 minAmountOut;
    bytes routeData;
}

struct LaunchBuyRequest {
    address originalCreator;
    address launchToken;
    address quoteToken;
    PoolKey poolKey;
    address fundingToken;
    uint256 amountIn;
    uint256 minAmountOut;
    uint64 deadline;
    bytes routeData;
}

/// One hop of a launch-buy route: kind 1 = a Uniswap v3 pool (not on the devnet), kind 2 = a v4 pool.
struct RouteStep {
    uint8 kind;
    address tokenIn;
    address tokenOut;
    address pool;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
    bytes hookData;
}

enum FeeKind {
    CREATOR,
    PLATFORM,
    REFERRER,
    FIXED
}

struct FeeComponent {
    bytes32 componentId;
    FeeKind kind;
    address configuredRecipient;
    uint16 feeBps;
}

/// A seed band in the token0 frame, relative to the start tick: [start + lowerOffset, start + upperOffset],
/// where upperOffset 0 means "up to the maximum usable tick". Offsets are multiples of the tick spacing.
struct Band {
    uint24 lowerOffsetTicks;
    uint24 upperOffsetTicks;
    uint16 supplyBps;
}

/// A band in pool ticks with its token amount, as the factory hands it to the hook.
struct SeedBand {
    int24 tickLower;
    int24 tickUpper;
    uint256 amount;
}

struct QuoteConfig {
    bool registered;
    uint8 quoteDecimals;
    int24 startTickToken0Frame;
}

struct QuoteRegistration {
    address quote;
    int24 startTickToken0Frame;
}

struct CreatorRights {
    address originalCreator;
    address currentCreator;
    address pendingCreator;
    address creatorFeeRecipient;
    PoolId poolId;
    bool metadataEditable;
}

struct PoolConfig {
    bool initialized;
    bool tokenIsCurrency0;
    address currentCreator;
    address creatorFeeRecipient;
    uint16 baseFeeBps;
    uint16 antiSnipeStartTotalBps;
    uint32 antiSnipeWindowSeconds;
    uint48 launchTime;
}

interface ICreatorRegistry {
    function currentCreatorOf(address token) external view returns (address);
}

interface IERC20Minimal {
    function balanceOf(address) external view returns (uint256);
    function decimals() external view returns (uint8);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// ERC-20 transfers that accept tokens returning nothing, and native transfers.
library TokenTransfer {
    error TransferFailed(address token);

    function send(address token, address to, uint256 amount) internal {
        if (token == address(0)) {
            (bool ok,) = to.call{value: amount}("");
            if (!ok) revert TransferFailed(token);
            return;
        }
        (bool ok, bytes memory ret) = token.call(abi.encodeCall(IERC20Minimal.transfer, (to, amount)));
        _check(token, ok, ret);
    }

    function pull(address token, address from, address to, uint256 amount) internal {
        (bool ok, bytes memory ret) = token.call(abi.encodeCall(IERC20Minimal.transferFrom, (from, to, amount)));
        _check(token, ok, ret);
    }

    function _check(address token, bool ok, bytes memory ret) private pure {
        if (!ok) {
            // Bubble the token's own error (ERC20InsufficientBalance, …) so callers can decode it.
            assembly ("memory-safe") {
                revert(add(ret, 32), mload(ret))
            }
        }
        if (ret.length != 0 && !abi.decode(ret, (bool))) revert TransferFailed(token);
    }
}
