// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {TokenTransfer} from "./LaunchTypes.sol";
import {LaunchFactory} from "./LaunchFactory.sol";
import {LaunchHook} from "./LaunchHook.sol";

/// @title Erc20FeeLaunchFactory
/// @notice The current factory with its launch fee charged in an ERC-20 (as historical suites could):
/// `launchFeeAmount` of `launchFeeToken` pulled from the creator with `transferFrom` (the creator
/// approves this factory first) and sent to the platform fee recipient. A launch carries no native fee.
contract Erc20FeeLaunchFactory is LaunchFactory {
    address public launchFeeToken;
    uint256 public launchFeeAmount;

    event LaunchFeeUpdated(address token, uint256 amount);
    event LaunchFeePaid(address indexed payer, address indexed token, address indexed recipient, uint256 amount);

    constructor(IPoolManager poolManager_, LaunchHook hook_, address feeEscrow_, address owner_)
        LaunchFactory(poolManager_, hook_, feeEscrow_, owner_)
    {}

    function setLaunchFee(address token, uint256 amount) external onlyOwner {
        if (token == address(0)) revert InvalidConfig();
        launchFeeToken = token;
        launchFeeAmount = amount;
        emit LaunchFeeUpdated(token, amount);
        _bumpConfigVersion();
    }

    function _nativeFeeDue() internal pure override returns (uint256) {
        return 0;
    }

    function _payLaunchFee() internal override {
        uint256 amount = launchFeeAmount;
        if (amount == 0) return;
        TokenTransfer.pull(launchFeeToken, msg.sender, platformFeeRecipient, amount);
        emit LaunchFeePaid(msg.sender, launchFeeToken, platformFeeRecipient, amount);
    }
}
