// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";

/// @title ClaimPayout
/// @notice Pays out PoolManager ERC-6909 claims held by this contract: burns the claim and takes the
/// currency to a destination, inside one unlock. Shared by the fee escrow and the dividend distributor.
abstract contract ClaimPayout is IUnlockCallback {
    IPoolManager public immutable poolManager;

    error NotPoolManager();

    constructor(IPoolManager poolManager_) {
        poolManager = poolManager_;
    }

    function _payOut(address currency, address destination, uint256 amount) internal {
        poolManager.unlock(abi.encode(currency, destination, amount));
    }

    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        (address currency, address destination, uint256 amount) = abi.decode(data, (address, address, uint256));
        Currency c = Currency.wrap(currency);
        poolManager.burn(address(this), c.toId(), amount);
        poolManager.take(c, destination, amount);
        return "";
    }
}
