// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {ClaimPayout} from "./ClaimPayout.sol";

/// @title FeeEscrow
/// @notice Holds the hook's fees as PoolManager ERC-6909 claims and the per-recipient ledger of what is
/// owed. A claim zeroes the balance, then burns the claim and takes the currency to the destination.
contract FeeEscrow is ClaimPayout {
    address public immutable hook;

    /// recipient => currency (0 = native) => amount
    mapping(address => mapping(address => uint256)) public owed;

    event Credited(address indexed recipient, address indexed currency, uint256 amount);
    event Claimed(address indexed recipient, address indexed currency, address indexed destination, uint256 amount);

    error NothingToClaim();
    error NotHook();
    error ZeroAddress();
    error ZeroDestination();

    constructor(IPoolManager poolManager_, address hook_) ClaimPayout(poolManager_) {
        if (address(poolManager_) == address(0) || hook_ == address(0)) revert ZeroAddress();
        hook = hook_;
    }

    /// @notice Books `amount` for `recipient`; the hook has minted the matching claim to this contract.
    function credit(address recipient, address currency, uint256 amount) external {
        if (msg.sender != hook) revert NotHook();
        if (recipient == address(0)) revert ZeroAddress();
        owed[recipient][currency] += amount;
        emit Credited(recipient, currency, amount);
    }

    /// @notice Pays `recipient` everything it is owed in `currency`. Anyone may call it.
    function claimFor(address recipient, address currency) external returns (uint256) {
        return _claim(recipient, currency, recipient);
    }

    /// @notice Pays the caller's own balance in `currency` to `destination`.
    function claimTo(address currency, address destination) external returns (uint256) {
        if (destination == address(0)) revert ZeroDestination();
        return _claim(msg.sender, currency, destination);
    }

    function _claim(address recipient, address currency, address destination) private returns (uint256 amount) {
        amount = owed[recipient][currency];
        if (amount == 0) revert NothingToClaim();
        owed[recipient][currency] = 0;
        _payOut(currency, destination, amount);
        emit Claimed(recipient, currency, destination, amount);
    }
}
